#!/usr/bin/env bash
# Benchmarks/serve.sh [HOSTS]: figures for `pinwatch serve`.
#
#   - /metrics render time for HOSTS synthetic hosts with full chains
#     (pinwatch-metrics-bench, the same renderer serve keeps);
#   - a real `serve` on HOSTS configured hosts (all refused at once on
#     127.0.0.1, so a cycle is quick): peak RSS before and after 200
#     scrapes of /metrics, and CPU used while idle between cycles.
# Needs curl. Uses the release build (PINWATCH= to give a binary).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
HOSTS="${1:-10000}"
IDLE_SECS="${IDLE_SECS:-30}"
if [[ -z "${PINWATCH:-}" ]]; then
  swift build -c release --static-swift-stdlib --product pinwatch >&2
  swift build -c release --static-swift-stdlib --product pinwatch-serve >&2
  swift build -c release --static-swift-stdlib --product pinwatch-metrics-bench >&2
  PINWATCH="$(swift build -c release --static-swift-stdlib --show-bin-path)/pinwatch"
fi
BENCH="$(dirname "$PINWATCH")/pinwatch-metrics-bench"
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

echo "render: $("$BENCH" "$HOSTS" 20)"

{
  echo "interval: 1h"
  echo "timeout: 2s"
  echo "concurrency: 256"
  echo "hosts:"
  for ((i = 0; i < HOSTS; i++)); do
    printf '  - {host: h%d.bench.test, port: 1, connect: 127.0.0.1}\n' "$i"
  done
} > "$work/pinwatch.yaml"
port=$((20000 + RANDOM % 20000))
"$PINWATCH" serve --config "$work/pinwatch.yaml" --listen "127.0.0.1:$port" --state "$work/state.sqlite" 2> "$work/serve.log" &
pid=$!
for _ in $(seq 1 600); do
  curl -sf "127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "127.0.0.1:$port/-/ready" >/dev/null || { echo "serve never became ready" >&2; cat "$work/serve.log" >&2; exit 1; }
kib() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$pid/status"; }
size=$(curl -s "127.0.0.1:$port/metrics" | wc -c)
rss_before=$(kib VmRSS); hwm_before=$(kib VmHWM)
start=$(date +%s.%N)
for _ in $(seq 1 200); do curl -s -o /dev/null "127.0.0.1:$port/metrics"; done
scrape_ms=$(echo "($(date +%s.%N) - $start) * 1000 / 200" | bc -l)
rss_after=$(kib VmRSS); hwm_after=$(kib VmHWM)
printf 'scrapes: hosts=%d metrics_bytes=%d per_scrape_ms=%.1f rss_before_kib=%d rss_after_kib=%d peak_before_kib=%d peak_after_kib=%d\n' \
  "$HOSTS" "$size" "$scrape_ms" "$rss_before" "$rss_after" "$hwm_before" "$hwm_after"

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks); sleep "$IDLE_SECS"; t1=$(ticks)
printf 'idle: %d s between cycles, cpu=%.2f%% of a core\n' "$IDLE_SECS" "$(echo "($t1 - $t0) * 100 / $hz / $IDLE_SECS" | bc -l)"
