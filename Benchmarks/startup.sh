#!/usr/bin/env bash
# Benchmarks/startup.sh: the CPU one `pinwatch check` of one host costs, as
# a monitoring system runs it every minute for every service, against the
# C reference scanner doing the same one handshake.
#
# Four commands, interleaved over ROUNDS rounds (lib/startup_cpu.py: user +
# system CPU from wait4, medians; then perf stat's task-clock where perf
# counts): `check --config C --state off`, the plain
# line read without ArgumentParser; the same line with `--state off` given
# twice, which only ArgumentParser reads (so its cost shows beside);
# `tlsscan -n 1`; and `true`, the floor. With valgrind, also the instructions each executes
# (callgrind; stable on a noisy machine), from a copy without debug
# information, which valgrind 3.19 cannot read in these binaries.
#
# Env: ROUNDS (100), SKIP_DEPS=1, PINWATCH (a prebuilt binary), BENCH_WORK.
set -euo pipefail
BENCH_SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$BENCH_SELF/.." && pwd)"
export BENCH_WORK="${BENCH_WORK:-/tmp/pinwatch-bench}"
ROUNDS="${ROUNDS:-100}"
FARM="$BENCH_SELF/farm"

[[ "${SKIP_DEPS:-0}" == 1 ]] || "$FARM/install-deps.sh"
mkdir -p "$BENCH_WORK/bin"
TLSSCAN="$BENCH_WORK/bin/tlsscan"
gcc -O2 -Wall -o "$TLSSCAN" "$BENCH_SELF/reference/tlsscan.c" -lssl -lcrypto -lpthread
if [[ -z "${PINWATCH:-}" ]]; then
  command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product pinwatch >&2)
  PINWATCH="$(cd "$REPO" && swift build -c release --static-swift-stdlib --show-bin-path)/pinwatch"
fi
"$FARM/make-pki.sh" 1
work=$(mktemp -d)
trap '"$FARM/farm.sh" stop || true; rm -rf "$work"' EXIT
"$FARM/farm.sh" start 1
python3 "$BENCH_SELF/lib/farm_config.py" 1 "$BENCH_WORK/pki/expected-pins.tsv" "$BENCH_WORK/pki/root.pem" > "$work/one.yaml"
"$PINWATCH" check --config "$work/one.yaml" --state off >&2 || { echo "startup: check of the farm host failed" >&2; exit 1; }

plain="$PINWATCH check --config $work/one.yaml --state off"
parsed="$plain --state off"
reference="$TLSSCAN -n 1 -c 1 -t 1 -r $BENCH_WORK/pki/root.pem -o $work/one.tsv"
echo "Command: \`Benchmarks/startup.sh\` (ROUNDS=$ROUNDS; $(nproc) cores, load $(cut -d" " -f1 /proc/loadavg) at start; pinwatch $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown))"
echo
# `true` is the floor: what starting any program costs this harness (the
# fork, and the exec of a small dynamically linked C program).
python3 "$BENCH_SELF/lib/startup_cpu.py" "$ROUNDS" \
  "pinwatch check, plain line=$plain" "pinwatch check, through ArgumentParser=$parsed" "reference, one host=$reference" \
  "floor: true=$(command -v true)"

# The same with perf's task-clock, which counts from the exec on (no fork,
# no harness): the measure the start-up goal names. Skipped where perf
# cannot count (some virtual machines).
if command -v perf >/dev/null && perf stat -x , -e task-clock true >/dev/null 2>&1; then
  echo
  echo "perf stat -e task-clock, interleaved, $ROUNDS rounds:"
  echo
  python3 "$BENCH_SELF/lib/startup_cpu.py" --task-clock "$ROUNDS" \
    "pinwatch check, plain line=$plain" "reference, one host=$reference" "floor: true=$(command -v true)"
fi

if command -v valgrind >/dev/null; then
  objcopy --strip-debug "$PINWATCH" "$work/pinwatch"
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$@" 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  echo
  echo "| command | instructions (callgrind) |"
  echo "|---|---:|"
  echo "| pinwatch check, plain line | $(instructions "$work/pinwatch" check --config "$work/one.yaml" --state off) |"
  echo "| pinwatch check, through ArgumentParser | $(instructions "$work/pinwatch" check --config "$work/one.yaml" --state off --state off) |"
  echo "| reference, one host | $(instructions $reference) |"
fi
