#!/usr/bin/env python3
"""startup_cpu.py [--task-clock] ROUNDS LABEL=COMMAND... : CPU time of whole short commands, interleaved.

Each round runs every command once, in turn, so the machine's load moves
all of them alike. CPU per run is user + system time from wait4(), which
Linux derives from the scheduler's exact runtime (no 10-ms ticks) and
which includes the fork and exec; with --task-clock, it is `perf stat -e
task-clock` instead, counted from the exec on. Every run must exit with 0
to 3 (a Nagios plugin's codes; `check` answers with them); anything else
stops the benchmark. Prints, per label, the median, the minimum and the
number of runs, in milliseconds.
"""
import os
import shlex
import statistics
import subprocess
import sys


def cpu_ms(command):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if not 0 <= code <= 3:
        sys.exit(f"startup_cpu: {shlex.join(command)} exited {code}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def task_clock_ms(command):
    """perf stat's task-clock of one run; perf writes its CSV line to stderr."""
    perf = ["perf", "stat", "-x", ",", "-e", "task-clock", "--"] + command
    result = subprocess.run(perf, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not 0 <= result.returncode <= 3:
        sys.exit(f"startup_cpu: {shlex.join(command)} exited {result.returncode}")
    for line in result.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("task-clock"):
            return float(fields[0])
    sys.exit(f"startup_cpu: no task-clock from perf for {shlex.join(command)}: {result.stderr.strip()}")


def main():
    arguments = sys.argv[1:]
    measure = cpu_ms
    if arguments and arguments[0] == "--task-clock":
        measure = task_clock_ms
        arguments = arguments[1:]
    rounds = int(arguments[0])
    commands = [(spec.split("=", 1)[0], shlex.split(spec.split("=", 1)[1])) for spec in arguments[1:]]
    samples = {label: [] for label, _ in commands}
    for _ in range(rounds):
        for label, command in commands:
            samples[label].append(measure(command))
    print("| command | median CPU ms | min CPU ms | runs |")
    print("|---|---:|---:|---:|")
    for label, values in samples.items():
        print(f"| {label} | {statistics.median(values):.2f} | {min(values):.2f} | {len(values)} |")


if __name__ == "__main__":
    main()
