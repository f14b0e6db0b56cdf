#!/usr/bin/env bash
# Benchmarks/run.sh [--quick]: pinwatch against a C reference scanner and the shell method.
#
# One run prints one Markdown table: for each N, pinwatch snapshot,
# the C reference scan and the shell method (N <= SHELL_MAX), interleaved,
# RUNS timed runs each after one warm-up, medians; then the dashboard figures.
# Every timed run's output is checked against the farm's PKI, so a fast but
# wrong run fails the benchmark instead of improving it.
#
# Everything it needs is in this folder: the farm (farm/: nginx on loopback,
# one key per leaf, the PKI made with the openssl command line), the C
# reference scanner and the shell method (reference/), the output checks
# (lib/). The farm, PKI, compiled reference and results live in BENCH_WORK
# (default /tmp/pinwatch-bench).
# Raw numbers: $BENCH_WORK/results/<run>/ (runs.tsv, dashboard.tsv,
# summary.json, table.md); $BENCH_WORK/results/latest points at the last run.
#
# Env: NS ("50 200 1000"; BENCH_BIG=1 adds 5000), RUNS (3), SHELL_MAX (200),
#      IDLE_SECS (60), SKIP_DEPS=1 (no apt/pip check), PINWATCH (a prebuilt binary:
#      skips `swift build -c release --static-swift-stdlib`), FRAME_BENCH (default: next to PINWATCH).
# --quick: N = 20 and 50, one run, no warm-up, 10-s idle window (a smoke test).
set -euo pipefail

BENCH_SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$BENCH_SELF/.." && pwd)"
export BENCH_WORK="${BENCH_WORK:-/tmp/pinwatch-bench}"
FARM="$BENCH_SELF/farm"
REFERENCE="$BENCH_SELF/reference"
LIB="$BENCH_SELF/lib"
COMMAND_LINE="Benchmarks/run.sh${*:+ $*}"

RUNS="${RUNS:-3}" WARMUPS=1 SHELL_MAX="${SHELL_MAX:-200}" IDLE_SECS="${IDLE_SECS:-60}"
NS="${NS:-50 200 1000}"
[[ "${BENCH_BIG:-0}" == 1 ]] && NS="$NS 5000"
case "${1:-}" in
  --quick) NS="20 50" RUNS=1 WARMUPS=0 IDLE_SECS=10 ;;
  "") ;;
  *) echo "usage: Benchmarks/run.sh [--quick]" >&2; exit 2 ;;
esac
# Each run is bounded; the slowest, the shell method at 200 hosts, takes 10-20 s.
RUN_TIMEOUT=300

source "$LIB/dashboard.sh"

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

prepare() {
  [[ "${SKIP_DEPS:-0}" == 1 ]] || "$FARM/install-deps.sh"
  mkdir -p "$BENCH_WORK/bin"
  TLSSCAN="$BENCH_WORK/bin/tlsscan"
  gcc -O2 -Wall -o "$TLSSCAN" "$REFERENCE/tlsscan.c" -lssl -lcrypto -lpthread
  if [[ -z "${PINWATCH:-}" ]]; then
    # The toolchain lives in /opt/swift on these machines; only a login shell has it on PATH.
    command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
    # The release build as shipped: the Swift runtime and Foundation linked
    # in, which halves start-up CPU and saves ~6 MB of resident memory.
    log "swift build -c release --static-swift-stdlib"
    (cd "$REPO" && swift build -c release --static-swift-stdlib >&2)
    PINWATCH="$(cd "$REPO" && swift build -c release --static-swift-stdlib --show-bin-path)/pinwatch"
  fi
  [[ -x "$PINWATCH" ]] || { echo "no pinwatch binary at $PINWATCH" >&2; exit 2; }
  FRAME_BENCH="${FRAME_BENCH:-$(dirname "$PINWATCH")/pinwatch-frame-bench}"
  local max=0 n
  for n in $NS; do (( n > max )) && max=$n; done
  (( max >= DASHBOARD_HOSTS )) || max=$DASHBOARD_HOSTS
  "$FARM/make-pki.sh" "$max"
  EXPECTED="$BENCH_WORK/pki/expected-pins.tsv"
  ROOT_PEM="$BENCH_WORK/pki/root.pem"
}

start_results() {
  RESULTS="$BENCH_WORK/results/run-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$RESULTS/out"
  ln -sfn "$RESULTS" "$BENCH_WORK/results/latest"
  printf 'n\ttool\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\n' > "$RESULTS/runs.tsv"
  {
    echo "command: $COMMAND_LINE (NS=\"$NS\" RUNS=$RUNS)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "pinwatch: $PINWATCH ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown))"
    echo "machine: $(nproc) cores, $(uname -sr), $(openssl version | cut -d" " -f1-2), load $(cut -d" " -f1-3 /proc/loadavg) at start"
  } > "$RESULTS/meta.txt"
}

# measure N TOOL RUN LABEL VERIFY... -- COMMAND...: one timed run, checked, appended to runs.tsv.
# RUN "warmup" is checked but not recorded. The check runs after the clock stops.
measure() {
  local n="$1" tool="$2" run="$3"; shift 3
  local verify=()
  while [[ "$1" != "--" ]]; do verify+=("$1"); shift; done
  shift
  local out="$RESULTS/out/N$n-$tool-$run.out" timing="$RESULTS/out/N$n-$tool-$run.time"
  if ! python3 "$LIB/measure.py" "$timing" "$out" "$RUN_TIMEOUT" -- "$@"; then
    echo "FAIL: N=$n $tool run $run: command failed ($(cat "$timing")): $*" >&2; exit 1
  fi
  # The output file is an argument of some commands and stdout of others.
  "${verify[@]}" >&2 || { echo "FAIL: N=$n $tool run $run: wrong output" >&2; exit 1; }
  [[ "$run" == warmup ]] && return 0
  local wall user sys rss _
  read -r wall user sys rss _ < "$timing"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$tool" "$run" "$wall" "$user" "$sys" "$rss" >> "$RESULTS/runs.tsv"
  log "N=$n $tool run $run: ${wall}s wall, $(python3 -c "print(f'{$user+$sys:.3f}')")s CPU, ${rss} KB"
}

run_pinwatch() {
  local n="$1" run="$2" out="$RESULTS/out/N$1-pinwatch-$2.out"
  measure "$n" pinwatch "$run" python3 "$LIB/check_snapshot.py" "$out" "$n" "$EXPECTED" -- \
    "$PINWATCH" snapshot --format json --config "$CONFIG" --state off
}

run_reference() {
  local n="$1" run="$2" tsv="$RESULTS/out/N$1-reference-$2.tsv"
  measure "$n" reference "$run" python3 "$LIB/verify_tsv.py" "$tsv" "$n" leaf,int,root "$EXPECTED" -- \
    "$TLSSCAN" -n "$n" -c 32 -t 2 -r "$ROOT_PEM" -o "$tsv"
}

run_shell() {
  local n="$1" run="$2" tsv="$RESULTS/out/N$1-shell-$2.tsv"
  measure "$n" shell "$run" python3 "$LIB/verify_tsv.py" "$tsv" "$n" leaf,int "$EXPECTED" -- \
    "$REFERENCE/shell-method.sh" "$n" 8 "$tsv"
}

FARM_STARTED=0
cleanup() {
  dashboard_cleanup
  if (( FARM_STARTED )); then "$FARM/farm.sh" stop || true; fi
}

start_farm() {
  FARM_STARTED=1
  "$FARM/farm.sh" start "$1"
  CONFIG="$RESULTS/pinwatch-N$1.yaml"
  python3 "$LIB/farm_config.py" "$1" "$EXPECTED" "$ROOT_PEM" > "$CONFIG"
}

bench_size() {
  local n="$1" run
  start_farm "$n"
  for ((run = 1; run <= WARMUPS; run++)); do
    run_pinwatch "$n" warmup; run_reference "$n" warmup
  done
  for ((run = 1; run <= RUNS; run++)); do
    # Alternate who goes first, so neither tool always gets the warmer machine.
    if (( run % 2 )); then
      run_pinwatch "$n" "$run"; run_reference "$n" "$run"
    else
      run_reference "$n" "$run"; run_pinwatch "$n" "$run"
    fi
    (( n <= SHELL_MAX )) && run_shell "$n" "$run"
  done
  return 0
}

# Later cycles of a long-running poller (watch, serve) find the chains they
# verified before in the cache: CPU per host of the first cycle and of the
# next four, over the largest N, from pinwatch-cycle-bench.
cycle_figures() {
  local n=0 m
  for m in $NS; do (( m > n )) && n=$m; done
  start_farm "$n"
  local bench
  bench="$(dirname "$PINWATCH")/pinwatch-cycle-bench"
  [[ -x "$bench" ]] || { log "no $bench: cycle figures skipped"; return 0; }
  "$bench" "$CONFIG" 5 > "$RESULTS/cycles.tsv" || { echo "FAIL: pinwatch-cycle-bench" >&2; exit 1; }
  python3 - "$RESULTS/cycles.tsv" "$n" > "$RESULTS/cycles.md" <<'PY'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n")[1:] if line]
first, later = rows[0], rows[1:]
warm = statistics.median(float(r[2]) for r in later)
n = int(sys.argv[2])
print(f"| cycles of one poller, {n:,} hosts | wall s | CPU µs/host | hosts/s |")
print("|---|---:|---:|---:|")
print(f"| first (every chain verified) | {float(first[1]):.3f} | {float(first[2]):.0f} | {n / float(first[1]):.0f} |")
wall = statistics.median(float(r[1]) for r in later)
print(f"| next {len(later)}, median (chains from the cache: {later[-1][3]} hits) | {wall:.3f} | {warm:.0f} | {n / wall:.0f} |")
PY
}

main() {
  trap cleanup EXIT
  prepare
  start_results
  log "results: $RESULTS"
  local n
  for n in $NS; do bench_size "$n"; done
  cycle_figures
  start_farm "$DASHBOARD_HOSTS"
  dashboard_figures
  {
    echo "Command: \`$COMMAND_LINE\` (NS=\"$NS\", RUNS=$RUNS, medians; $(sed -n 's/^machine: //p' "$RESULTS/meta.txt"))"
    echo
    python3 "$LIB/summarize.py" "$RESULTS"
    if [[ -f "$RESULTS/cycles.md" ]]; then echo; cat "$RESULTS/cycles.md"; fi
  } > "$RESULTS/table.md"
  cat "$RESULTS/table.md"
  log "raw numbers and table: $RESULTS"
}

main
