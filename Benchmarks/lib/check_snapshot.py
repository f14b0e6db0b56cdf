#!/usr/bin/env python3
"""check_snapshot.py JSON N EXPECTED_PINS: fail loudly unless a pinwatch snapshot of the farm is right.

A benchmark that only times the run would reward a fast but wrong program, so
every timed run's JSON (DESIGN §8) is checked against the PKI the farm serves:
N hosts in config order, each `ok` with a trusted three-level chain whose SPKI
pins and leaf notAfter equal expected-pins.tsv, and a summary that agrees.
Prints one line; exit 1 with the first problems on any mismatch.
"""
import datetime as dt
import json
import os
import sys

PORT_BASE = int(os.environ.get("PORT_BASE", "20000"))
ROLES = ["leaf", "intermediate", "root"]
LEVEL_NAMES = ["leaf", "int", "root"]


def epoch_of_openssl(text):
    """expected-pins.tsv dates are `openssl x509 -enddate` text, always GMT."""
    text = " ".join(text.split())
    return int(dt.datetime.strptime(text, "%b %d %H:%M:%S %Y %Z").replace(tzinfo=dt.timezone.utc).timestamp())


def epoch_of_iso(text):
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def load_expected(path):
    expected = {}
    with open(path) as f:
        for line in f:
            host, level, pin, not_after = line.rstrip("\n").split("\t")
            expected[(host, level)] = (pin, epoch_of_openssl(not_after))
    return expected


def host_problems(index, entry, expected):
    name = f"host{index}.test"
    problems = []
    if entry.get("host") != name or entry.get("port") != PORT_BASE + index:
        return [f"position {index}: {entry.get('host')}:{entry.get('port')} instead of {name}:{PORT_BASE + index}"]
    if entry.get("status") != "ok":
        problems.append(f"{name}: status {entry.get('status')} error {entry.get('error')} alerts {entry.get('alerts')}")
    if entry.get("trusted") is not True:
        problems.append(f"{name}: not trusted ({entry.get('trust_error')})")
    if "ca" not in (entry.get("matched_tiers") or []):
        problems.append(f"{name}: matched_tiers {entry.get('matched_tiers')} lacks ca")
    chain = entry.get("chain") or []
    if [level.get("role") for level in chain] != ROLES:
        return problems + [f"{name}: chain roles {[level.get('role') for level in chain]} instead of {ROLES}"]
    for position, (level, level_name) in enumerate(zip(chain, LEVEL_NAMES)):
        pin, not_after = expected[(name, level_name)]
        if level.get("level") != position:
            problems.append(f"{name}/{level_name}: level number {level.get('level')}")
        if level.get("spki_sha256") != pin:
            problems.append(f"{name}/{level_name}: spki_sha256 {level.get('spki_sha256')} != {pin}")
        if epoch_of_iso(level.get("not_after") or "1970-01-01T00:00:00Z") != not_after:
            problems.append(f"{name}/{level_name}: not_after {level.get('not_after')} != {not_after}")
    ca_match_recorded = any(m.get("tier") == "ca" for level in chain[1:] for m in level.get("matched") or [])
    if not ca_match_recorded:
        problems.append(f"{name}: no level records a ca-tier match")
    return problems


def main():
    path, hosts, expected_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as error:
        print(f"SNAPSHOT CHECK FAIL {path}: unreadable JSON: {error}")
        sys.exit(1)
    expected = load_expected(expected_path)
    problems = []
    if report.get("version") != 1:
        problems.append(f"version {report.get('version')}")
    # Severity counts are an additive field of version 1: every farm host is ok.
    wanted_summary = {"ok": hosts, "leaf_only": 0, "blocked": 0, "error": 0, "unpinned": 0,
                      "severity": {"critical": 0, "unknown": 0, "warning": 0, "ok": hosts}}
    if report.get("summary") != wanted_summary:
        problems.append(f"summary {report.get('summary')} instead of {wanted_summary}")
    entries = report.get("hosts") or []
    if len(entries) != hosts:
        problems.append(f"{len(entries)} hosts instead of {hosts}")
    for index, entry in enumerate(entries[:hosts], start=1):
        problems += host_problems(index, entry, expected)
    if problems:
        print(f"SNAPSHOT CHECK FAIL {path}: {len(problems)} problems, e.g. {problems[:3]}")
        sys.exit(1)
    print(f"snapshot ok: {os.path.basename(path)}: {hosts} hosts ok, leaf/int/root pins + expiry match")


if __name__ == "__main__":
    main()
