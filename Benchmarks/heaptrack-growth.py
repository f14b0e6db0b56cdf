#!/usr/bin/env python3
"""Benchmarks/heaptrack-growth.py FILE.zst SECONDS[-UNTIL] [STACKS]: what grew after SECONDS.

Reads a heaptrack recording (Benchmarks/heaptrack-serve.sh writes one) and
counts, for every allocation site, the allocations made after SECONDS less
the frees made after SECONDS: the net change in what the site holds between
that moment and the process's end (or UNTIL seconds: a process that frees
its state as it quits hides what grew before). A site whose memory was only
in flight nets out; one that keeps what it allocates does not. Prints what
the whole process held at each minute, the total, then the sites by
category (the allocator's caller and the first pinwatch frame), then the
STACKS (default 8) largest whole stacks.

Why not `heaptrack_print --print-leaks` with a baseline: the difference of
two runs compares two processes, whose in-flight work at the end differs;
this compares two moments of one.
"""
import collections
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: Benchmarks/heaptrack-growth.py FILE.zst SECONDS[-UNTIL] [STACKS]")
    path, window = sys.argv[1], sys.argv[2].split("-", 1)
    since = float(window[0]) * 1000
    until = float(window[1]) * 1000 if len(window) > 1 else float("inf")
    shown = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    # heaptrack's file: hex fields; strings, instruction pointers and trace
    # nodes are numbered from 1 in order of appearance, allocation sites from 0.
    strings, pointers, traces, sites = [None], [None], [None], []
    blocks, size = collections.Counter(), collections.Counter()
    now = 0
    held, minutes = 0, []
    reader = subprocess.Popen(["zstdcat", path], stdout=subprocess.PIPE, text=True, errors="replace")
    for line in reader.stdout:
        kind = line[0]
        if kind in "+-":
            site_size, trace = sites[int(line[2:], 16)]
            sign = 1 if kind == "+" else -1
            held += sign * site_size
            if since <= now < until:
                blocks[trace] += sign
                size[trace] += sign * site_size
        elif kind == "c":
            now = int(line[2:], 16)
            while now >= (len(minutes) + 1) * 60_000:
                minutes.append(held)
        elif kind == "a":
            site_size, trace = line[2:].split()
            sites.append((int(site_size, 16), int(trace, 16)))
        elif kind == "s":
            fields = line.rstrip("\n").split(" ", 2)
            strings.append(fields[2] if len(fields) > 2 else "")
        elif kind == "i":
            pointers.append(line.split()[1:])
        elif kind == "t":
            pointer, parent = line.split()[1:]
            traces.append((int(pointer, 16), int(parent, 16)))
    if reader.wait() != 0:
        sys.exit(f"heaptrack-growth: cannot read {path}")

    def frame(index):
        fields = pointers[index]
        module = strings[int(fields[1], 16)].rsplit("/", 1)[-1]
        function = strings[int(fields[2], 16)] if len(fields) > 2 and int(fields[2], 16) else "?"
        return function, module

    def stack(trace, depth):
        frames = []
        while trace and len(frames) < depth:
            pointer, trace = traces[trace]
            frames.append(frame(pointer))
        return frames

    print("held at each minute, KiB: " + " ".join(f"{bytes_held / 1024:.0f}" for bytes_held in minutes))
    end = f"{until / 1000:g} s" if until < float("inf") else f"the end ({now / 1000:g} s)"
    print(f"after {since / 1000:g} s to {end}: net {sum(size.values())} bytes, {sum(blocks.values())} blocks")
    categories, category_blocks = collections.Counter(), collections.Counter()
    for trace, grown in size.items():
        frames = stack(trace, 40)
        allocator = frames[0][0][:50] if frames else "?"
        own = next((function[:90] for function, module in frames if module.startswith("pinwatch")), "-")
        categories[(allocator, own)] += grown
        category_blocks[(allocator, own)] += blocks[trace]
    print("\nbytes  blocks  allocator  <=  first pinwatch frame")
    for key, grown in sorted(categories.items(), key=lambda item: -item[1])[:25]:
        print(f"{grown:8d} {category_blocks[key]:6d}  {key[0]}  <=  {key[1]}")
    for trace, grown in sorted(size.items(), key=lambda item: -item[1])[:shown]:
        print(f"\n=== {grown} bytes, {blocks[trace]} blocks")
        for function, module in stack(trace, 14):
            print(f"    {function[:110]} [{module}]")


if __name__ == "__main__":
    main()
