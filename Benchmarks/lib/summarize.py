#!/usr/bin/env python3
"""summarize.py RESULTS_DIR: the one Markdown table of a benchmark run, from its raw numbers.

Reads RESULTS_DIR/runs.tsv (one line per timed run: n, tool, run, wall_s,
user_s, sys_s, maxrss_kb) and RESULTS_DIR/dashboard.tsv (metric, value, unit,
note), writes RESULTS_DIR/summary.json and prints the table plus the target
checks (the goals README.md, "Performance", states). Medians, so one disturbed run of three cannot move
a figure; the table is computed from files, so it can be re-made without
re-running anything.
"""
import csv
import json
import os
import re
import statistics
import sys

TOOLS = ("pinwatch", "reference", "shell")
# Targets the snapshot half can check (README.md, "Performance"; the ratio's goal:
# at least as fast as the C reference on the same job).
RATIO_TARGET, RATIO_AT = 1.0, (200, 1000)
FLATNESS_TARGET = 0.20
RSS_TARGET_MB, RSS_AT = 40.0, 1000


def read_runs(path):
    runs = {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            runs.setdefault((int(row["n"]), row["tool"]), []).append(row)
    return runs


def medians(rows, n):
    wall = statistics.median(float(r["wall_s"]) for r in rows)
    cpu = statistics.median(float(r["user_s"]) + float(r["sys_s"]) for r in rows)
    rss = statistics.median(int(r["maxrss_kb"]) for r in rows)
    return {
        "runs": len(rows),
        "wall_s": wall,
        "hosts_per_s": n / wall,
        "cpu_s": cpu,
        "cpu_us_per_host": cpu / n * 1e6,
        "peak_rss_mb": rss / 1024,
    }


def cell(value, fmt):
    return "–" if value is None else format(value, fmt)


def dashboard_verdict(row):
    """PASS/FAIL for a row whose value and `≤ X` target are both numbers, else the value as is."""
    limit = re.match(r"≤\s*([0-9.]+)", row["target"])
    try:
        value = float(row["value"])
    except ValueError:
        return row["value"]
    return "–" if limit is None else ("PASS" if value <= float(limit.group(1)) else "FAIL")


def main():
    results = sys.argv[1]
    runs = read_runs(os.path.join(results, "runs.tsv"))
    sizes = sorted({n for n, _ in runs})
    figures = {n: {tool: medians(runs[(n, tool)], n) for tool in TOOLS if (n, tool) in runs} for n in sizes}

    print("| N | pinwatch hosts/s | reference hosts/s | shell hosts/s | pinwatch/reference | "
          "pinwatch CPU µs/host | reference CPU µs/host | pinwatch peak RSS MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        f = figures[n]
        get = lambda tool, key: f[tool][key] if tool in f else None
        ratio = f["pinwatch"]["hosts_per_s"] / f["reference"]["hosts_per_s"] if {"pinwatch", "reference"} <= f.keys() else None
        if ratio is not None:
            f["ratio"] = ratio
        print(f"| {n:,} | {cell(get('pinwatch', 'hosts_per_s'), '.0f')} | {cell(get('reference', 'hosts_per_s'), '.0f')} | "
              f"{cell(get('shell', 'hosts_per_s'), '.1f')} | {cell(ratio, '.2f')} | "
              f"{cell(get('pinwatch', 'cpu_us_per_host'), '.0f')} | {cell(get('reference', 'cpu_us_per_host'), '.0f')} | "
              f"{cell(get('pinwatch', 'peak_rss_mb'), '.1f')} |")

    checks = []
    small, large = (50, 1000) if {50, 1000} <= set(sizes) else (min(sizes), max(sizes))
    flatness = None
    if small != large and "pinwatch" in figures[small] and "pinwatch" in figures[large]:
        flatness = figures[large]["pinwatch"]["cpu_us_per_host"] / figures[small]["pinwatch"]["cpu_us_per_host"]
        print(f"\nFlatness: pinwatch CPU per host at N={large:,} / N={small:,} = {flatness:.2f} "
              f"(target within ±{FLATNESS_TARGET:.0%})")
        checks.append((f"per-host CPU flat N={small}→{large}", abs(flatness - 1) <= FLATNESS_TARGET))
    for n in RATIO_AT:
        if n in figures and "ratio" in figures[n]:
            checks.append((f"snapshot ≥ {RATIO_TARGET}× reference at N={n:,}", figures[n]["ratio"] >= RATIO_TARGET))
    if RSS_AT in figures and "pinwatch" in figures[RSS_AT]:
        checks.append((f"RSS ≤ {RSS_TARGET_MB:.0f} MB at N={RSS_AT:,}", figures[RSS_AT]["pinwatch"]["peak_rss_mb"] <= RSS_TARGET_MB))

    dashboard = []
    dashboard_path = os.path.join(results, "dashboard.tsv")
    if os.path.exists(dashboard_path):
        with open(dashboard_path) as f:
            dashboard = list(csv.DictReader(f, delimiter="\t"))
    if dashboard:
        print("\n| dashboard figure | value | target | verdict | note |")
        print("|---|---:|---:|---|---|")
        for row in dashboard:
            row["verdict"] = dashboard_verdict(row)
            value = f"{row['value']} {row['unit']}".strip()
            print(f"| {row['metric']} | {value} | {row['target']} | {row['verdict']} | {row['note']} |")

    if checks:
        print("\nTargets: " + "; ".join(f"{name}: {'PASS' if ok else 'FAIL'}" for name, ok in checks))

    with open(os.path.join(results, "summary.json"), "w") as out:
        json.dump({"by_n": {str(n): figures[n] for n in sizes}, "flatness_cpu_per_host": flatness,
                   "targets": {name: ok for name, ok in checks}, "dashboard": dashboard}, out, indent=2)


if __name__ == "__main__":
    main()
