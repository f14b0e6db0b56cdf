#!/usr/bin/env python3
"""verify_tsv.py OUT N LEVELS EXPECTED_PINS: fail loudly unless a method's
output is right for the farm.

OUT holds `host<TAB>level<TAB>pin<TAB>notAfter` lines (the C reference and
the shell method both write that); for hosts 1..N and each level in LEVELS
(comma-separated: leaf,int,root) the line must equal expected-pins.tsv's.
Prints one line; exit 1 with the first problems on any mismatch.
"""
import sys


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4:
                host, level, pin, not_after = parts
                rows[(host, level)] = (pin, " ".join(not_after.split()))
    return rows


def main():
    out, count, levels, expected_path = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
    got, expected = read(out), read(expected_path)
    problems = []
    for i in range(1, count + 1):
        for level in levels:
            key = (f"host{i}.test", level)
            if key not in expected:
                problems.append(f"{key}: not in {expected_path}")
            elif got.get(key) != expected[key]:
                problems.append(f"{key}: got {got.get(key)}, expected {expected[key]}")
    if problems:
        print(f"verify {out}: {len(problems)} problems", file=sys.stderr)
        for problem in problems[:10]:
            print("  " + problem, file=sys.stderr)
        sys.exit(1)
    print(f"verify {out}: {count} hosts x {','.join(levels)} ok")


if __name__ == "__main__":
    main()
