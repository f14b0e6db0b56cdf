#!/usr/bin/env bash
# Benchmarks/heaptrack-serve.sh SECONDS OUT: `pinwatch-serve` (debug build)
# under heaptrack for SECONDS against pinwatch-soak-lab's fleet (store on,
# no hooks), then ended by SIGTERM; heaptrack writes OUT.zst. What a
# longer run holds at its end that a shorter one does not is what grows:
#
#   Benchmarks/heaptrack-serve.sh 180 /tmp/short
#   Benchmarks/heaptrack-serve.sh 540 /tmp/long
#   heaptrack_print -f /tmp/long.zst -d /tmp/short.zst --print-leaks 1
#
# or, from one run, what grew between a moment and the end:
#
#   Benchmarks/heaptrack-serve.sh 480 /tmp/run
#   Benchmarks/heaptrack-growth.py /tmp/run.zst 180
#
# RAW=1 keeps heaptrack's raw data (OUT.raw.zst), whose `m` lines give each
# library's load address, to place frames of libraries without symbols.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
[[ $# -eq 2 && "$1" =~ ^[0-9]+$ ]] || { echo "usage: Benchmarks/heaptrack-serve.sh SECONDS OUT" >&2; exit 2; }
command -v heaptrack >/dev/null || { echo "heaptrack-serve: needs heaptrack" >&2; exit 2; }
seconds=$1 out=$2
for product in pinwatch-serve pinwatch-soak-lab; do swift build --product "$product" >&2; done
bin=$(swift build --show-bin-path)
work=$(mktemp -d)
lab_pid="" heaptrack_pid=""
cleanup() {
  [[ -n "$heaptrack_pid" ]] && kill "$heaptrack_pid" 2>/dev/null || true
  [[ -n "$lab_pid" ]] && kill "$lab_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The lab leaves when its stdin closes: this script holds the other end.
mkfifo "$work/lab.in"
exec 3<>"$work/lab.in"
"$bin/pinwatch-soak-lab" "$work" 10 <"$work/lab.in" >"$work/lab.out" 2>&1 &
lab_pid=$!
for _ in $(seq 1 300); do grep -q '^ready' "$work/lab.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$work/lab.out" || { echo "heaptrack-serve: the lab did not start" >&2; exit 1; }

port=$((20000 + RANDOM % 20000))
raw=()
[[ "${RAW:-}" == 1 ]] && raw=(--raw)
heaptrack "${raw[@]}" -o "$out" "$bin/pinwatch-serve" --config "$work/pinwatch.yaml" \
  --listen "127.0.0.1:$port" --state "$work/state.sqlite" >"$work/serve.log" 2>&1 &
heaptrack_pid=$!
for _ in $(seq 1 300); do curl -sf "127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break; sleep 0.1; done
sleep "$seconds"
# heaptrack's own shell waits for the traced process: end that one, by PID.
serve_pid=$(pgrep -f "^$bin/pinwatch-serve --config $work/pinwatch.yaml" || true)
[[ -n "$serve_pid" ]] && kill -TERM $serve_pid
for _ in $(seq 1 600); do kill -0 "$heaptrack_pid" 2>/dev/null || break; sleep 0.1; done
heaptrack_pid=""
ls "$out".*zst
