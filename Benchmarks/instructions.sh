#!/usr/bin/env bash
# Benchmarks/instructions.sh [N]: where the CPU of one snapshot of N farm
# hosts (default 200) goes, in instructions per host, for pinwatch and the
# C reference scanner doing the same job.
#
# Instruction counts (valgrind's callgrind) do not move with the machine's
# load the way times do, so a change of a few per cent shows here when
# run.sh's hosts/s cannot resolve it. Each row is the inclusive count of
# one function (OpenSSL's, both programs call them) divided by N; the
# outputs are checked against the farm's PKI as in run.sh, so a run that
# failed its handshakes cannot look cheap. Under valgrind the program runs
# on one thread at a time and about 50 times slower: expect a minute or two.
#
# Env: SKIP_DEPS=1, PINWATCH (a prebuilt binary), BENCH_WORK, PROBE_TIMEOUT
# (the configuration's `timeout:`, default 10s: under valgrind on a busy
# machine a handshake can take longer, and a timed-out host fails the check).
set -euo pipefail
BENCH_SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$BENCH_SELF/.." && pwd)"
export BENCH_WORK="${BENCH_WORK:-/tmp/pinwatch-bench}"
FARM="$BENCH_SELF/farm"
LIB="$BENCH_SELF/lib"
case "${1:-}" in
  -h | --help)
    echo "usage: Benchmarks/instructions.sh [N]   (1 to 5000 farm hosts; default 200)"
    exit 0
    ;;
esac
N="${1:-200}"
[[ "$N" =~ ^[0-9]+$ ]] && ((N >= 1 && N <= 5000)) || {
  echo "usage: Benchmarks/instructions.sh [N]   (1 to 5000 farm hosts; default 200)" >&2
  exit 2
}

if [[ "${SKIP_DEPS:-0}" != 1 ]]; then
  "$FARM/install-deps.sh"
  if ! command -v valgrind >/dev/null && [[ $EUID -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind >&2
  fi
fi
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
  echo "instructions: needs valgrind (apt-get install -y valgrind)" >&2
  exit 2
}
mkdir -p "$BENCH_WORK/bin"
TLSSCAN="$BENCH_WORK/bin/tlsscan"
gcc -O2 -Wall -o "$TLSSCAN" "$BENCH_SELF/reference/tlsscan.c" -lssl -lcrypto -lpthread
if [[ -z "${PINWATCH:-}" ]]; then
  command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product pinwatch >&2)
  PINWATCH="$(cd "$REPO" && swift build -c release --static-swift-stdlib --show-bin-path)/pinwatch"
fi
"$FARM/make-pki.sh" "$N"
work=$(mktemp -d)
trap '"$FARM/farm.sh" stop || true; rm -rf "$work"' EXIT
"$FARM/farm.sh" start "$N"
EXPECTED="$BENCH_WORK/pki/expected-pins.tsv"
ROOT_PEM="$BENCH_WORK/pki/root.pem"
python3 "$LIB/farm_config.py" "$N" "$EXPECTED" "$ROOT_PEM" --timeout "${PROBE_TIMEOUT:-10s}" > "$work/config.yaml"
# valgrind 3.19 cannot read the debug information of these binaries.
objcopy --strip-debug "$PINWATCH" "$work/pinwatch"

echo "[instructions] callgrind: pinwatch snapshot of $N hosts" >&2
valgrind --tool=callgrind --callgrind-out-file="$work/pinwatch.out" \
  "$work/pinwatch" snapshot --format json --config "$work/config.yaml" --state off > "$work/snapshot.json" 2> "$work/pinwatch.log"
python3 "$LIB/check_snapshot.py" "$work/snapshot.json" "$N" "$EXPECTED" >&2
echo "[instructions] callgrind: reference scan of $N hosts" >&2
valgrind --tool=callgrind --callgrind-out-file="$work/reference.out" \
  "$TLSSCAN" -n "$N" -c 32 -t 2 -r "$ROOT_PEM" -o "$work/reference.tsv" 2> "$work/reference.log"
python3 "$LIB/verify_tsv.py" "$work/reference.tsv" "$N" leaf,int,root "$EXPECTED" >&2

# The full inclusive profiles are kept: any function's row (JSONReport.write,
# the configuration's parser, ...) is a grep away.
PROFILES="$BENCH_WORK/results/instructions-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$PROFILES"
callgrind_annotate --inclusive=yes --threshold=100 "$work/pinwatch.out" > "$PROFILES/pinwatch.txt" 2>/dev/null
callgrind_annotate --inclusive=yes --threshold=100 "$work/reference.out" > "$PROFILES/reference.txt" 2>/dev/null
echo "[instructions] inclusive profiles: $PROFILES/pinwatch.txt, $PROFILES/reference.txt" >&2
echo "Command: \`Benchmarks/instructions.sh $N\` (pinwatch $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown), OpenSSL $(openssl version | cut -d' ' -f2))"
echo
python3 "$LIB/instructions_table.py" "$N" "$PROFILES/pinwatch.txt" "$PROFILES/reference.txt"
