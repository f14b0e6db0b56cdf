#!/usr/bin/env python3
"""check_curl.py OUT N: fail unless parallel-curl.sh reached every farm host.

Each of the N hosts must appear once with HTTP 204 (the farm's answer) and
verify result 0 (the chain checked against the farm's root), so a curl run
that timed out or skipped hosts cannot pass for a fast one.
"""
import os
import re
import sys

PORT_BASE = int(os.environ.get("PORT_BASE", "20000"))
LINE = re.compile(r"^(\d{3}) (\d+) https://host(\d+)\.test:(\d+)/$")


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    seen, problems = set(), []
    with open(path) as f:
        for line in f:
            match = LINE.match(line.rstrip("\n"))
            if not match:
                problems.append(f"unexpected line: {line.strip()[:120]!r}")
                continue
            code, verify, index, port = match.group(1), match.group(2), int(match.group(3)), int(match.group(4))
            if code != "204" or verify != "0" or port != PORT_BASE + index:
                problems.append(f"host{index}.test: HTTP {code}, verify result {verify}, port {port}")
            seen.add(index)
    missing = sorted(set(range(1, n + 1)) - seen)
    if missing:
        problems.append(f"{len(missing)} hosts missing, first host{missing[0]}.test")
    if problems:
        print(f"curl output {path}: {len(problems)} problems", *problems[:5], sep="\n  ")
        sys.exit(1)
    print(f"curl output ok: {n} hosts, each 204 and verified")


if __name__ == "__main__":
    main()
