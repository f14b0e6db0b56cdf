#!/usr/bin/env bash
# Benchmarks/heaptrack-serve.sh SECONDS OUT: `pinwatch-serve` (debug build)
# under heaptrack for SECONDS against pinwatch-soak-lab's fleet (store on,
# no hooks), then ended by SIGTERM; heaptrack writes OUT.zst.
# PROCESS=watch traces `pinwatch watch` instead, in a tmux server of its
# own (160×50), ended by its `q` key; HOOKS=1 adds the soak's storm of
# hooks (Benchmarks/lib/soak-hooks.sh), as `scripts/soak` runs them.
# What a longer run holds at its end that a shorter one does not is what
# grows:
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
# shellcheck source=Benchmarks/lib/soak-hooks.sh
source Benchmarks/lib/soak-hooks.sh
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
[[ $# -eq 2 && "$1" =~ ^[0-9]+$ ]] || { echo "usage: Benchmarks/heaptrack-serve.sh SECONDS OUT" >&2; exit 2; }
command -v heaptrack >/dev/null || { echo "heaptrack-serve: needs heaptrack" >&2; exit 2; }
seconds=$1 out=$2
process=${PROCESS:-serve}
[[ "$process" == serve || "$process" == watch ]] || { echo "heaptrack-serve: PROCESS is serve or watch" >&2; exit 2; }
[[ "$process" == serve ]] || command -v tmux >/dev/null || { echo "heaptrack-serve: PROCESS=watch needs tmux" >&2; exit 2; }
for product in pinwatch pinwatch-serve pinwatch-soak-lab; do swift build --product "$product" >&2; done
bin=$(swift build --show-bin-path)
work=$(mktemp -d)
socket="pinwatch-heaptrack-$$"
hook_marker="pinwatch-heaptrack-hook-child-$$"
lab_pid="" heaptrack_pid=""
cleanup() {
  [[ -n "$heaptrack_pid" ]] && kill "$heaptrack_pid" 2>/dev/null || true
  tmux -L "$socket" kill-server 2>/dev/null || true
  [[ -n "$lab_pid" ]] && kill "$lab_pid" 2>/dev/null || true
  # Children this run's hooks left behind are ours: end them by PID.
  for pid in $(soak_marked_children "$hook_marker"); do kill "$pid" 2>/dev/null || true; done
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

config="$work/pinwatch.yaml"
if [[ "${HOOKS:-}" == 1 ]]; then
  soak_hooks "$work" "$hook_marker"
  config="$work/$process.yaml"
fi
raw=()
[[ "${RAW:-}" == 1 ]] && raw=(--raw)
if [[ "$process" == serve ]]; then
  port=$((20000 + RANDOM % 20000))
  heaptrack "${raw[@]}" -o "$out" "$bin/pinwatch-serve" --config "$config" \
    --listen "127.0.0.1:$port" --state "$work/state.sqlite" >"$work/serve.log" 2>&1 &
  heaptrack_pid=$!
  for _ in $(seq 1 300); do curl -sf "127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break; sleep 0.1; done
  sleep "$seconds"
  # heaptrack's own shell waits for the traced process: end that one, by PID.
  serve_pid=$(pgrep -f "^$bin/pinwatch-serve --config $config" || true)
  [[ -n "$serve_pid" ]] && kill -TERM $serve_pid
  for _ in $(seq 1 600); do kill -0 "$heaptrack_pid" 2>/dev/null || break; sleep 0.1; done
else
  tmux -L "$socket" new-session -d -x 160 -y 50 \
    "heaptrack ${raw[*]} -o '$out' '$bin/pinwatch' watch --config '$config' --no-bell --state '$work/state.sqlite'"
  heaptrack_pid=$(tmux -L "$socket" display-message -p '#{pane_pid}')
  for _ in $(seq 1 300); do tmux -L "$socket" capture-pane -p | grep -q 'soak.test' && break; sleep 0.1; done
  sleep "$seconds"
  tmux -L "$socket" send-keys q
  for _ in $(seq 1 600); do kill -0 "$heaptrack_pid" 2>/dev/null || break; sleep 0.1; done
fi
heaptrack_pid=""
ls "$out".*zst
