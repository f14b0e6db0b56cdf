#!/usr/bin/env bash
# Benchmarks/scrapers.sh [HOSTS] [SCRAPERS] [SECONDS]: scrape latency and
# cycle lateness of one real `pinwatch serve` under concurrent scrapers.
#
# HOSTS configured hosts (default 10,000) all dial one nginx on 127.0.0.1
# (two workers, a wildcard leaf under an intermediate) under names of their
# own, so every host has a 3-level chain and the text carries its
# chain-level series. `INTERVAL` (default 20s) is short enough that
# several cycles end while one curl keeps SCRAPERS scrapes of /metrics
# in flight (default 50), back to back for SECONDS (default 60), each
# asking for gzip as Prometheus does (`MODE=plain` for the text).
#
# Prints the scrapes' count, p50, p99 and max (curl's time_total), and
# each cycle's start against its tick (the timer ticks every INTERVAL from
# the first cycle's start; a cycle starts late when the previous one, or
# anything on the monitor's queue, holds it). PINWATCH= gives the binary
# (default: the debug build's); run it twice in one sitting, on the build
# before a change and after, for a ratio. Needs curl, openssl and nginx.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
HOSTS="${1:-10000}"
SCRAPERS="${2:-50}"
SECONDS_RUN="${3:-60}"
INTERVAL="${INTERVAL:-20}"
MODE="${MODE:-gzip}"
PINWATCH="${PINWATCH:-$(swift build --show-bin-path)/pinwatch}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  [[ -f "$work/nginx.pid" ]] && kill -QUIT "$(cat "$work/nginx.pid")" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=Benchmarks/lib/bench-pki.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-pki.sh"
bench_pki "$work" 20

tls_port=$((20000 + RANDOM % 20000))
mkdir -p "$work/logs"
cat > "$work/nginx.conf" << EOF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  ssl_session_cache off; ssl_session_tickets off;
  server { listen 127.0.0.1:$tls_port ssl; ssl_certificate $work/chain.pem; ssl_certificate_key $work/leaf.key; return 204; }
}
EOF
"$NGINX" -q -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log"
for _ in $(seq 50); do [[ -s "$work/nginx.pid" ]] && break; sleep 0.1; done

{
  echo "interval: ${INTERVAL}s"
  echo "timeout: 5s"
  echo "concurrency: 256"
  echo "revocation: off"
  echo "trust: $work/root.pem"
  echo "hosts:"
  for ((i = 0; i < HOSTS; i++)); do
    printf '  - {host: h%d.bench.test, port: %d, connect: 127.0.0.1, pins: {ca: [sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=]}}\n' "$i" "$tls_port"
  done
} > "$work/pinwatch.yaml"
port=$((20000 + RANDOM % 20000))
"$PINWATCH" serve --config "$work/pinwatch.yaml" --listen "127.0.0.1:$port" --state off 2> "$work/serve.log" &
serve=$!
pids+=($serve)
for _ in $(seq 1 1200); do
  curl -sf "127.0.0.1:$port/-/ready" > /dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "127.0.0.1:$port/-/ready" > /dev/null || { echo "serve never became ready" >&2; cat "$work/serve.log" >&2; exit 1; }
bytes=$(curl -s -o /dev/null -w '%{size_download}' "127.0.0.1:$port/metrics")

# seen_at last_cycle duration, one line per new cycle.
sample_cycles() {
  local last=""
  while :; do
    local text now cycle duration
    text=$(curl -s --compressed "127.0.0.1:$port/metrics" | grep -E '^pinwatch_(last_cycle_timestamp|cycle_duration)_seconds ') || true
    now=$(date +%s.%N)
    cycle=$(awk '$1 == "pinwatch_last_cycle_timestamp_seconds" { print $2 }' <<< "$text")
    duration=$(awk '$1 == "pinwatch_cycle_duration_seconds" { print $2 }' <<< "$text")
    if [[ -n $cycle && $cycle != "$last" ]]; then
      echo "$now $cycle $duration"
      last=$cycle
    fi
    sleep 0.2
  done
}
sample_cycles > "$work/cycles" &
sampler=$!
pids+=($sampler)

header=()
[[ $MODE == gzip ]] && header=(-H 'Accept-Encoding: gzip')
# One curl keeping SCRAPERS transfers in flight (as many scrapers would,
# without 50 processes forking on the machine being measured), each on a
# connection of its own, for SECONDS.
yes "url = \"http://127.0.0.1:$port/metrics\"
output = \"/dev/null\"" | head -n 400000 > "$work/urls" || true
# PERF_DATA=FILE: serve's profile over the first 15 s of scraping.
if [[ -n "${PERF_DATA:-}" ]]; then
  perf record -F 499 -g -p "$serve" -o "$PERF_DATA" -- sleep 15 > /dev/null 2>&1 &
  perf=$!
fi
timeout "$SECONDS_RUN" curl -s --no-progress-meter -Z --parallel-max "$SCRAPERS" --parallel-immediate "${header[@]}" \
  -w '%{time_total} %{http_code}\n' -K "$work/urls" > "$work/scraper0" || true
kill "$sampler" 2> /dev/null || true
sed -i 's/ 200$//; s/^.* [0-9]*$/fail/' "$work/scraper0"
if [[ -n "${PERF_DATA:-}" ]]; then wait "$perf" || true; fi
cat "$work"/scraper* | grep -v fail | sort -n > "$work/times"
failed=$(cat "$work"/scraper* | grep -c fail || true)
count=$(wc -l < "$work/times")
pick() { awk -v q="$1" -v n="$count" 'NR == (int(n * q) > 0 ? int(n * q) : 1) { printf "%.3f", $1 * 1000 }' "$work/times"; }
echo "hosts=$HOSTS scrapers=$SCRAPERS seconds=$SECONDS_RUN interval=${INTERVAL}s mode=$MODE body_bytes=$bytes"
printf 'scrapes=%d failed=%d p50_ms=%s p99_ms=%s max_ms=%s\n' "$count" "$failed" "$(pick 0.5)" "$(pick 0.99)" \
  "$(tail -1 "$work/times" | awk '{ printf "%.3f", $1 * 1000 }')"

# The cycles, from the text itself (three decimals): each new
# pinwatch_last_cycle_timestamp_seconds, with its duration, gives the
# cycle's start; the timer ticked every INTERVAL from the first start.
# "published_after_s" is how long after its end a cycle's text was first
# seen by the sampler (every 0.2 s, one more scraper).
awk -v interval="$INTERVAL" '
  { start = $2 - $3; if (NR == 1) first = start
    tick = first + int((start - first) / interval + 0.5) * interval; late = start - tick
    if (late < 0) late = 0
    if (late > worst) worst = late
    if ($1 - $2 > lag) lag = $1 - $2
    printf "cycle %d: duration_s=%.2f start_late_s=%.2f published_after_s=%.2f\n", NR, $3, late, $1 - $2 }
  END { printf "cycles=%d worst_start_late_s=%.2f worst_published_after_s=%.2f\n", NR, worst, lag }' "$work/cycles"
grep -c 'outlasted the interval' "$work/serve.log" | sed 's/^/overran_warnings=/'
