#!/usr/bin/env python3
"""Prometheus' instant-query API for a synthetic fleet of N hosts, on
127.0.0.1, for Benchmarks/fleet-answer.sh: every series the fleet view
reads, in the exporter's shape (a chain of three levels as one
`pinwatch_chain_info` a host, its CA levels one `pinwatch_ca_level_info`
each for the whole fleet), answered by the `query` parameter as
pinwatch asks it: one query for every series, or the snapshot's queries
(the instances' series; series counted by exporter, by host, or by the next
characters of host names; a chunk of hosts named exactly or by prefix).

    prometheus.py HOSTS PORT

/asked says how many queries were answered since /reset.
"""
import bisect
import json
import re
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

hosts_count, port = int(sys.argv[1]), int(sys.argv[2])
spki = "B" * 43 + "="


def sample(labels, value="1"):
    return json.dumps({"metric": labels, "value": [1800000000.5, value]}, separators=(",", ":"))


exporter = {"instance": "serve:1", "job": "pinwatch"}
instance_series = [("pinwatch_last_cycle_timestamp_seconds", sample(
    {"__name__": "pinwatch_last_cycle_timestamp_seconds", **exporter}, "1799999990"))]
# Every host serves the same chain: its CA levels are written once.
for level, role in [(1, "intermediate"), (2, "root")]:
    instance_series.append(("pinwatch_ca_level_info", sample(
        {"__name__": "pinwatch_ca_level_info", **exporter, "ca_chain": "c0", "level": str(level), "role": role,
         "subject": f"CN=level{level}.ca", "spki_sha256": spki})))
names = []
series = {}  # host name -> [(family, json)]
for i in range(hosts_count):
    name = f"host{i}.test"
    host = {"host": name, "port": "443", "instance": "serve:1", "job": "pinwatch"}
    rows = [("pinwatch_host_reason_info", sample({**host, "__name__": "pinwatch_host_reason_info", "status": "ok",
             "severity": "ok", "headline": "ok", "tiers": "ca", "reason": "a CA-tier pin matches: survives leaf renewals"}))]
    # The exporter's default shape: the chain as one info series (the
    # leaf, the pins' results, its CA levels by reference), the leaf's and
    # the chain's earliest expiry one series each, the host's labels, the
    # probe's time.
    rows.append(("pinwatch_host_labels", sample({**host, "__name__": "pinwatch_host_labels", "team": f"team-{i % 20}"})))
    rows.append(("pinwatch_leaf_not_after_timestamp_seconds", sample(
        {**host, "__name__": "pinwatch_leaf_not_after_timestamp_seconds"}, "1830000000")))
    rows.append(("pinwatch_chain_not_after_timestamp_seconds", sample(
        {**host, "__name__": "pinwatch_chain_not_after_timestamp_seconds", "level": "0", "role": "leaf"}, "1830000000")))
    rows.append(("pinwatch_chain_info", sample({**host, "__name__": "pinwatch_chain_info", "spki_sha256": spki,
                 "subject": f"CN={name}", "ca_pin": "match", "ca_pin_levels": "1", "ca_chain": "c0"})))
    rows.append(("pinwatch_probe_duration_seconds", sample(
        {**host, "__name__": "pinwatch_probe_duration_seconds"}, "0.05")))
    names.append(name)
    series[name] = rows
names.sort()

matcher = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"')


def unquote(text):
    return re.sub(r'\\(.)', r'\1', text)


def unregex(text):
    return re.sub(r'\\(.)', r'\1', text)


def split_alternatives(pattern):
    out, current, escaped = [], "", False
    for c in pattern:
        if escaped:
            current += "\\" + c
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == "|":
            out.append(current)
            current = ""
        else:
            current += c
    out.append(current)
    return out


def hosts_matching(pattern):
    """Names matching `pattern`, made of exact names and `prefix.*`."""
    if pattern is None:
        return names
    found = []
    for alternative in split_alternatives(pattern):
        if alternative.endswith(".*"):
            prefix = unregex(alternative[:-2])
            start = bisect.bisect_left(names, prefix)
            end = bisect.bisect_left(names, prefix + "\U0010ffff")
            found += names[start:end]
        else:
            name = unregex(alternative)
            if name in series:
                found.append(name)
    return found


def answer(query):
    selector = query[query.index("{") + 1:query.index("}")]
    families, host = set(), None
    for label, op, value in matcher.findall(selector):
        value = unquote(value)
        if label == "__name__":
            families = set(value.split("|"))
        elif label == "host":
            host = value
    if query.startswith("count by (host) "):
        # count by (host) (SELECTOR): each host's series
        return [json.dumps({"metric": {"host": name}, "value": [1800000000.5, str(count)]})
                for name in hosts_matching(host)
                for count in [sum(1 for family, _ in series[name] if family in families)] if count]
    if query.startswith("count by (job, instance) "):
        # count by (job, instance) (SELECTOR): the one exporter's series
        count = sum(1 for name in hosts_matching(host) for family, _ in series[name] if family in families)
        return [json.dumps({"metric": exporter, "value": [1800000000.5, str(count)]})] if count else []
    if query.startswith("count by"):
        # count by (L) (label_replace(SELECTOR, "L", "$1", "host", "REGEX"))
        strings = [unquote(text) for text in re.findall(r'"((?:[^"\\]|\\.)*)"', query[query.index("}") + 1:])]
        label, pattern = strings[0], re.compile(strings[3], re.S)
        counts = {}
        for name in hosts_matching(host):
            match = pattern.fullmatch(name)
            key = match.group(1) if match else ""
            counts[key] = counts.get(key, 0) + sum(1 for family, _ in series[name] if family in families)
        return [json.dumps({"metric": {label: k} if k else {}, "value": [1800000000.5, str(v)]}) for k, v in counts.items()]
    out = [text for family, text in instance_series if family in families and host is None]
    for name in hosts_matching(host):
        out += [text for family, text in series[name] if family in families]
    return out


asked = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self, form=None):
        url = urllib.parse.urlparse(self.path)
        query = urllib.parse.parse_qs(form if form is not None else url.query).get("query", [""])[0]
        if url.path == "/asked":
            body = str(asked[0]).encode()
            self.send_response(200)
        elif url.path == "/reset":
            asked[0] = 0
            body = b""
            self.send_response(200)
        elif url.path != "/api/v1/query" or not query:
            body = b""
            self.send_response(200 if url.path == "/" else 404)
        else:
            asked[0] += 1
            body = ('{"status":"success","data":{"resultType":"vector","result":[' + ",".join(answer(query)) + "]}}").encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self):
        # A long query comes as a form.
        length = int(self.headers.get("Content-Length", "0"))
        self.do_GET(self.rfile.read(length).decode())

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
