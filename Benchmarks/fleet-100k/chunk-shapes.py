#!/usr/bin/env python3
"""What one full read of a fleet costs Prometheus, by the shape of its
chunks, for Benchmarks/fleet-100k.sh's HOLD: the series the snapshot asks
for (FleetSnapshotQuery.hostFamilies), in chunks of HOSTS named hosts
(as the snapshot did before 2026-12-07) or of EXPORTERS whole exporters
(`job`, `instance`), each query in turn over /api/v1/query with gzip, as
the snapshot asks. Prints each pass's queries, seconds of answering, and
how much of it Prometheus says it spent evaluating (`stats=all`; the
rest is encoding and sending), and the CPU time Prometheus used meanwhile
(its own `process_cpu_seconds_total`, its scrapes included if one falls
in): with the bodies read and dropped, what answering costs Prometheus
alone, the floor under a snapshot's wall time on the same machine.

    Benchmarks/fleet-100k/chunk-shapes.py URL [PASSES]
"""
import gzip
import json
import sys
import time
import urllib.parse
import urllib.request

FAMILIES = "|".join([
    "pinwatch_host_reason_info", "pinwatch_host_alert", "pinwatch_probe_error", "pinwatch_chain_info",
    "pinwatch_chain_level_info", "pinwatch_leaf_not_after_timestamp_seconds",
    "pinwatch_chain_not_after_timestamp_seconds", "pinwatch_chain_level_not_after_timestamp_seconds",
    "pinwatch_pin_match", "pinwatch_host_acknowledged", "pinwatch_host_labels",
])


def ask(url, query):
    """Seconds until the answer's last byte, Prometheus' own seconds
    evaluating it (`stats=all`), and its series."""
    form = urllib.parse.urlencode({"query": query, "stats": "all"}).encode()
    request = urllib.request.Request(url + "/api/v1/query", data=form, headers={"Accept-Encoding": "gzip"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=120) as answer:
        body = answer.read()
        encoding = answer.headers.get("Content-Encoding")
    elapsed = time.monotonic() - started
    document = json.loads(gzip.decompress(body) if encoding == "gzip" else body)
    evaluating = document["data"].get("stats", {}).get("timings", {}).get("evalTotalTime", 0.0)
    return elapsed, evaluating, document["data"]["result"]


def prometheus_cpu(url):
    """Prometheus' own CPU seconds so far, from its /metrics."""
    with urllib.request.urlopen(url + "/metrics", timeout=30) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("process_cpu_seconds_total "):
                return float(line.split()[1])
    sys.exit("chunk-shapes: Prometheus' /metrics has no process_cpu_seconds_total")


def regex(values):
    """Plain alternatives, each escaped as RE2 and then as a PromQL string."""
    special = set("\\.+*?()|[]{}^$")
    escaped = ("".join("\\" + c if c in special else c for c in value) for value in values)
    return json.dumps("|".join(escaped))


def main():
    url = sys.argv[1].rstrip("/")
    passes = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    _, _, counts = ask(url, 'count by (job, instance) ({__name__="pinwatch_host_reason_info"})')
    exporters = sorted((c["metric"].get("job", ""), c["metric"].get("instance", "")) for c in counts)
    jobs = {job for job, _ in exporters}
    if len(jobs) != 1:
        sys.exit("chunk-shapes: expects the exporters of one job, as fleet-100k.sh scrapes them")
    job = jobs.pop()
    _, _, hosts = ask(url, 'count by (host) ({__name__="pinwatch_host_reason_info"})')
    names = sorted(h["metric"]["host"] for h in hosts)
    print(f"{len(exporters)} exporters, {len(names)} hosts")

    def by_hosts(size):
        return [f'{{__name__=~"{FAMILIES}",host=~{regex(names[i:i + size])}}}' for i in range(0, len(names), size)]

    def by_exporters(size):
        instances = [instance for _, instance in exporters]
        return [f'{{__name__=~"{FAMILIES}",job={json.dumps(job)},instance=~{regex(instances[i:i + size])}}}'
                for i in range(0, len(instances), size)]

    shapes = [("2,000 hosts a chunk", by_hosts(2000)), ("4,000 hosts a chunk", by_hosts(4000)),
              ("1 exporter a chunk", by_exporters(1)), ("2 exporters a chunk", by_exporters(2))]
    for round_ in range(passes):
        for name, queries in shapes:
            seconds = 0.0
            evaluating = 0.0
            series = 0
            cpu = prometheus_cpu(url)
            for query in queries:
                elapsed, evaluated, result = ask(url, query)
                seconds += elapsed
                evaluating += evaluated
                series += len(result)
            cpu = prometheus_cpu(url) - cpu
            print(f"pass {round_ + 1}: {name}: {len(queries)} queries, {series} series, {seconds:.2f} s "
                  f"({evaluating:.2f} s of it evaluating), Prometheus CPU {cpu:.2f} s", flush=True)


if __name__ == "__main__":
    main()
