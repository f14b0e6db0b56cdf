#!/usr/bin/env python3
"""latency_table.py RUNS_TSV CORES: the Markdown table of Benchmarks/latency.sh.

floor = hosts × round trips × RTT / concurrency is the shortest a cycle can
be when only the network limits it. The CPU floor is every party's CPU time
(client, farm, delay line) over the cores they share: when it is above the
latency floor, the run is CPU-bound on this machine, and no client can reach
the latency floor there.
"""
import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    cores = int(sys.argv[2])
    print("| tool | hosts | concurrency | round trips × RTT | floor s | wall s | wall / floor "
          "| client CPU s | farm CPU s | delay line CPU s | CPU floor s | wall / max(floors) | client peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        hosts, concurrency = int(row["hosts"]), int(row["concurrency"])
        round_trips, rtt = int(row["round_trips"]), float(row["rtt_ms"]) / 1000
        wall = float(row["wall_s"])
        client, farm, link = float(row["client_cpu_s"]), float(row["farm_cpu_s"]), float(row["link_cpu_s"])
        floor = hosts * round_trips * rtt / concurrency
        cpu_floor = (client + farm + link) / cores
        print(f"| {row['tool']} | {hosts:,} | {concurrency:,} | {round_trips} × {rtt * 1000:.0f} ms | {floor:.2f} "
              f"| {wall:.2f} | {wall / floor:.2f} | {client:.2f} | {farm:.2f} | {link:.2f} | {cpu_floor:.2f} "
              f"| {wall / max(floor, cpu_floor):.2f} | {int(row['maxrss_kb']) / 1024:.1f} |")


if __name__ == "__main__":
    main()
