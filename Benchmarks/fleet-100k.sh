#!/usr/bin/env bash
# Benchmarks/fleet-100k.sh [HOSTS] [SHARDS]: a fleet of HOSTS synthetic hosts
# (default 100,000) over SHARDS shard exporters (default 10), scraped by a
# real Prometheus, and what reading it costs.
#
# `pinwatch-fleet-bench` renders each shard's `/metrics` with the exporter's
# own renderer (PrometheusRenderer over MetricFamily.all, from synthetic
# HostReports: most ok, some warning, critical, blocked and unknown, 3-level
# chains, a CA and a leaf pin each), so the figures follow the families as
# they change. nginx serves each shard's text (and its gzip form, made once,
# as `serve` keeps one per cycle) on a 127.0.0.1 port of its own; Debian's
# prometheus scrapes the SHARDS targets (SCRAPE_INTERVAL, default 60s; data
# in a temporary directory). Once every target is up and
# `prometheus_tsdb_head_series` stops growing, it measures:
#   - Prometheus: head series (its own prometheus_tsdb_head_series), series
#     per host, RSS now and peak, each target's scrape_duration_seconds;
#   - `pinwatch snapshot --prometheus URL` (text, and json where the binary
#     takes it): wall time, peak RSS, exit status;
#   - `pinwatch watch --prometheus URL` under a tmux server of its own: time
#     from launch until host rows are on screen, then from Enter until the
#     selected host's detail is, and the process's peak RSS;
#   - one shard's `/metrics` under SCRAPERS (50) concurrent scrapers for
#     SCRAPE_SECONDS (20), asking for gzip as Prometheus does: p50, p99, max.
# Every wait is bounded; the trap ends only what this script started, by PID.
#
#   Benchmarks/fleet-100k.sh 10000                    # a first try (~2 min)
#   PINWATCH=/path/to/pinwatch Benchmarks/fleet-100k.sh   # 100,000 hosts (~6 min)
#
# KEEP=DIR keeps the screens and snapshots there. PINWATCH_BEFORE names a
# second binary whose snapshots alternate with PINWATCH's, ROUNDS times
# (default 1), against the same Prometheus: a before and after in one run.
# SNAPSHOTS_ONLY=1 leaves out the dashboard and the scrapers. QUERY_LOG=1
# has the snapshots ask through `fleet-100k/query-log.py`, a logging proxy,
# and says for each how many queries it asked, how long Prometheus took to
# answer them, and how long the snapshot ran after the last answer.
# HOLD=SECONDS keeps Prometheus up that long once the measurements are
# done (or until the file the script names exists), its URL printed, for
# `fleet-100k/chunk-shapes.py` or snapshots by hand.
# PINWATCH and FLEET_BENCH name prebuilt binaries; otherwise the release
# builds (`swift build -c release --product pinwatch` and
# `--product pinwatch-fleet-bench`) are used, and made when missing.
# Needs prometheus, nginx, tmux, curl, gzip, python3 and GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift > /dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
HOSTS="${1:-100000}"
SHARDS="${2:-10}"
SCRAPE_INTERVAL="${SCRAPE_INTERVAL:-60}"
SCRAPERS="${SCRAPERS:-50}"
SCRAPE_SECONDS="${SCRAPE_SECONDS:-20}"
ROUNDS="${ROUNDS:-1}"
PINWATCH_BEFORE="${PINWATCH_BEFORE:-}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
PROMETHEUS="${PROMETHEUS:-$(command -v prometheus || echo /usr/bin/prometheus)}"
for tool in "$NGINX" "$PROMETHEUS" tmux curl gzip python3 /usr/bin/time; do
  command -v "$tool" > /dev/null 2>&1 || { echo "fleet-100k: $tool is missing" >&2; exit 1; }
done

release_binary() { # NAME: the release build's binary, built when missing
  local bin
  bin="$(swift build -c release --show-bin-path)/$1"
  [[ -x $bin ]] || swift build -c release --product "$1" >&2
  echo "$bin"
}
PINWATCH="${PINWATCH:-$(release_binary pinwatch)}"
FLEET_BENCH="${FLEET_BENCH:-$(release_binary pinwatch-fleet-bench)}"

work=$(mktemp -d /tmp/pinwatch-fleet-100k.XXXXXX)
socket="pinwatch-fleet-100k-$$"
prometheus_pid=
proxy_pid=
cleanup() {
  tmux -L "$socket" kill-server 2> /dev/null || true
  [[ -n $proxy_pid ]] && kill "$proxy_pid" 2> /dev/null || true
  [[ -n $prometheus_pid ]] && kill "$prometheus_pid" 2> /dev/null && wait "$prometheus_pid" 2> /dev/null || true
  [[ -f "$work/nginx.pid" ]] && kill -QUIT "$(cat "$work/nginx.pid")" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds; fails after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
kib_field() { awk -v f="$2:" '$1 == f { print int($2 / 1024) }' "/proc/$1/status"; } # PID FIELD → MiB
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }               # PID → user+system ticks

# The shards' text, and each one's gzip form.
"$FLEET_BENCH" "$HOSTS" "$SHARDS" "$work/shards" > "$work/shards.txt"
plain_bytes=$(awk '{ sub("bytes=", "", $3); total += $3 } END { print total }' "$work/shards.txt")
for file in "$work"/shards/*.prom; do gzip -1 -k "$file"; done
gzip_bytes=$(cat "$work"/shards/*.prom.gz | wc -c)
awk '{ for (i = 4; i <= NF; i++) { split($i, kv, "="); n[kv[1]] += kv[2] } }
  END { for (k in n) printf "%s=%d ", k, n[k]; print "" }' "$work/shards.txt" > "$work/mix.txt"

# One nginx, one server per shard.
mkdir -p "$work/logs"
ports=()
{
  echo "worker_processes 2; pid $work/nginx.pid; error_log $work/logs/error.log warn;"
  echo "events { worker_connections 4096; }"
  echo "http { access_log off; sendfile on; default_type text/plain;"
  echo "  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;"
  for ((shard = 0; shard < SHARDS; shard++)); do
    port=$(free_port)
    ports+=("$port")
    echo "  server { listen 127.0.0.1:$port; location = /metrics { gzip_static on; alias $work/shards/shard$shard.prom; } }"
  done
  echo "}"
} > "$work/nginx.conf"
"$NGINX" -q -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log"
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:${ports[0]}/metrics" ||
  { echo "nginx did not serve the shards" >&2; cat "$work/logs/error.log" >&2; exit 1; }

# Prometheus: the shards as one job, each target labelled with its shard.
prometheus_port=$(free_port)
{
  echo "global: {scrape_interval: ${SCRAPE_INTERVAL}s, scrape_timeout: $((SCRAPE_INTERVAL * 9 / 10))s}"
  echo "scrape_configs:"
  echo "  - job_name: pinwatch"
  echo "    static_configs:"
  for ((shard = 0; shard < SHARDS; shard++)); do
    echo "      - {targets: ['127.0.0.1:${ports[shard]}'], labels: {shard: '$shard'}}"
  done
} > "$work/prometheus.yml"
"$PROMETHEUS" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prometheus-data" \
  --web.listen-address="127.0.0.1:$prometheus_port" > "$work/logs/prometheus.log" 2>&1 &
prometheus_pid=$!
prometheus="http://127.0.0.1:$prometheus_port"
wait_for 60 curl -sf -o /dev/null "$prometheus/-/ready" ||
  { echo "prometheus never became ready" >&2; tail -20 "$work/logs/prometheus.log" >&2; exit 1; }

targets_up() {
  [[ $(curl -sf "$prometheus/api/v1/targets?state=active" |
    python3 -c 'import json,sys; print(sum(t["health"] == "up" for t in json.load(sys.stdin)["data"]["activeTargets"]))') == "$SHARDS" ]]
}
head_series() { curl -sf "$prometheus/metrics" | awk '$1 == "prometheus_tsdb_head_series" { printf "%d", $2 }'; }
started=$(now_ms)
wait_for 300 targets_up || { echo "not every target came up within 300 s" >&2; exit 1; }
# Up is decided per scrape; the head keeps growing while the last scrapes append.
previous=-1
for _ in $(seq 120); do
  series=$(head_series)
  [[ $series == "$previous" && $series -gt 0 ]] && break
  previous=$series
  sleep 5
done
ingest_s=$(echo "($(now_ms) - $started) / 1000" | bc -l)
prometheus_rss=$(kib_field "$prometheus_pid" VmRSS)
prometheus_peak=$(kib_field "$prometheus_pid" VmHWM)
scrape_durations=$(curl -sf "$prometheus/api/v1/query" --data-urlencode 'query=scrape_duration_seconds{job="pinwatch"}' |
  python3 -c 'import json,sys; v=sorted(float(r["value"][1]) for r in json.load(sys.stdin)["data"]["result"]); print("min=%.2fs max=%.2fs" % (v[0], v[-1]))')

snapshot_url=$prometheus
if [[ -n ${QUERY_LOG:-} ]]; then
  proxy_port=$(free_port)
  python3 Benchmarks/fleet-100k/query-log.py "$proxy_port" "$prometheus" "$work/queries.log" &
  proxy_pid=$!
  snapshot_url="http://127.0.0.1:$proxy_port"
  wait_for 10 curl -sf -o /dev/null "$snapshot_url/-/ready" || { echo "the query log's proxy did not start" >&2; exit 1; }
fi

# One configuration for the fleet views: a query may take up to 2 minutes.
printf 'interval: 5m\ntimeout: 2m\nhosts: []\n' > "$work/pinwatch.yaml"

# snapshot FORMAT [BINARY NAME]: wall s, peak RSS MiB and exit status of one
# snapshot by BINARY (PINWATCH by default), its output kept as NAME.FORMAT;
# the CPU it used, and Prometheus' meanwhile (its scrapes too, if one falls
# in): on a shared machine these move less with the load than wall time.
snapshot() {
  local status=0 binary="${2:-$PINWATCH}" name="${3:-snapshot}" ticks ticks_per_s started ended
  ticks_per_s=$(getconf CLK_TCK)
  ticks=$(cpu_ticks "$prometheus_pid")
  : > "$work/queries.log"
  started=$(date +%s.%N)
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" "$binary" snapshot --config "$work/pinwatch.yaml" --state off \
    --prometheus "$snapshot_url" --format "$1" --width 160 > "$work/$name.$1" 2> "$work/$name.$1.err" || status=$?
  ended=$(date +%s.%N)
  ticks=$(($(cpu_ticks "$prometheus_pid") - ticks))
  read -r wall kib user system < <(tail -1 "$work/time")
  [[ -z ${KEEP:-} ]] || cp "$work/$name.$1" "$work/$name.$1.err" "$KEEP/"
  printf '%s --format %s: wall_s=%s peak_rss_mib=%d cpu_s=%.2f prometheus_cpu_s=%.2f exit=%d out_bytes=%d %s\n' "$name" "$1" "$wall" \
    "$((kib / 1024))" "$(echo "$user + $system" | bc -l)" "$(echo "$ticks / $ticks_per_s" | bc -l)" "$status" \
    "$(wc -c < "$work/$name.$1")" "$(head -1 "$work/$name.$1.err" | cut -c1-160)"
  if [[ -n $proxy_pid ]]; then
    awk -v started="$started" -v ended="$ended" '{ n++; total += $2; last = $1 + $2 / 1000; if (n == 1) first = $1 }
      END { printf "  %d queries: Prometheus answered in %.2f s in all; the first asked %.2f s after the start, the last answered %.2f s before the end\n",
        n, total / 1000, first - started, ended - last }' "$work/queries.log"
    [[ -z ${KEEP:-} ]] || cp "$work/queries.log" "$KEEP/$name.$1.queries.log"
  fi
}

# The dashboard under tmux: launch to rows on screen, Enter to the detail.
pane() { tmux -L "$socket" capture-pane -p -t bench; }
rows_shown() { [[ $(pane | grep -c 'host-[0-9]*\.fleet\.example') -ge 5 ]]; }
# What the dashboard says when the fleet's query fails (PinwatchFleet's FleetQuery).
problems='Prometheus \(answered\|query timed out\|unreachable\)'
rows_or_problem() { rows_shown || pane | grep -q "$problems"; }
detail_shown() { pane | grep -q '── level 2'; } # the chain's root, listed in the detail only
watch_dashboard() {
  local launch pid t0 problem detail_ms=timeout rows_ms=timeout
  printf -v launch 'exec %q watch --no-bell --state off --config %q --prometheus %q' "$PINWATCH" "$work/pinwatch.yaml" "$prometheus"
  t0=$(now_ms)
  LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -L "$socket" -f /dev/null new-session -d -s bench -x 160 -y 50 "$launch"
  pid=$(tmux -L "$socket" display-message -p -t bench '#{pane_pid}')
  wait_for 180 rows_or_problem || true
  if problem=$(pane | grep -m1 -o "$problems.*"); then
    rows_ms="failed after $(($(now_ms) - t0)) ms: $problem"
  elif rows_shown; then
    rows_ms=$(($(now_ms) - t0))
    [[ -z ${KEEP:-} ]] || pane > "$KEEP/watch-rows.screen"
    # The first row whose chain the detail shows (an unknown host has none).
    tmux -L "$socket" send-keys -t bench /
    tmux -L "$socket" send-keys -t bench -l 'host-0.fleet'
    tmux -L "$socket" send-keys -t bench Enter
    # Its table row (the banner names hosts too, followed by a colon): the
    # fleet view asks Prometheus for the name, so the row comes a round trip later.
    wait_for 30 bash -c "tmux -L $socket capture-pane -p -t bench | grep -Eq 'host-0\.fleet\.example:443 +L'" || true
    t0=$(now_ms)
    tmux -L "$socket" send-keys -t bench Enter
    if wait_for 60 detail_shown; then detail_ms=$(($(now_ms) - t0)); fi
  fi
  echo "watch --prometheus: rows_on_screen_ms=$rows_ms detail_ms=$detail_ms peak_rss_mib=$(kib_field "$pid" VmHWM 2> /dev/null || echo '?')"
  [[ $rows_ms != timeout ]] || { echo "the dashboard showed no rows within 180 s:" >&2; pane | head -5 >&2; }
  [[ -z ${KEEP:-} ]] || pane > "$KEEP/watch-detail.screen"
  tmux -L "$socket" kill-server 2> /dev/null || true
}

# SCRAPERS concurrent scrapes of shard 0 for SCRAPE_SECONDS, one curl keeping them in flight.
scrape_latency() {
  yes "url = \"http://127.0.0.1:${ports[0]}/metrics\"
output = \"/dev/null\"" | head -n 400000 > "$work/urls" || true
  timeout "$SCRAPE_SECONDS" curl -s --no-progress-meter -Z --parallel-max "$SCRAPERS" --parallel-immediate \
    -H 'Accept-Encoding: gzip' -w '%{time_total} %{http_code}\n' -K "$work/urls" > "$work/scrapes" || true
  awk '$2 == 200 { print $1 }' "$work/scrapes" | sort -n > "$work/times"
  local count failed
  count=$(wc -l < "$work/times")
  failed=$(awk '$2 != 200' "$work/scrapes" | wc -l)
  pick() { awk -v q="$1" -v n="$count" 'NR == (int(n * q) > 0 ? int(n * q) : 1) { printf "%.1f", $1 * 1000 }' "$work/times"; }
  echo "scrapes of one shard ($SCRAPERS at once, gzip, ${SCRAPE_SECONDS}s): count=$count failed=$failed" \
    "p50_ms=$(pick 0.5) p99_ms=$(pick 0.99) max_ms=$(tail -1 "$work/times" | awk '{ printf "%.1f", $1 * 1000 }')"
}

echo "hosts=$HOSTS shards=$SHARDS scrape_interval=${SCRAPE_INTERVAL}s pinwatch=$PINWATCH ($("$PINWATCH" --version 2> /dev/null || echo '?'))"
echo "mix: $(cat "$work/mix.txt")"
printf 'exposition: %.1f MiB plain, %.1f MiB gzip in all; one shard %.1f MiB plain\n' \
  "$(echo "$plain_bytes / 1048576" | bc -l)" "$(echo "$gzip_bytes / 1048576" | bc -l)" \
  "$(echo "$(stat -c %s "$work/shards/shard0.prom") / 1048576" | bc -l)"
series=$(head_series)
printf 'prometheus: head_series=%d series_per_host=%.1f rss_mib=%d peak_rss_mib=%d ingest_s=%.0f scrape_duration %s\n' \
  "$series" "$(echo "$series / $HOSTS" | bc -l)" "$prometheus_rss" "$prometheus_peak" "$ingest_s" "$scrape_durations"
for ((round = 0; round < ROUNDS; round++)); do
  if [[ -n $PINWATCH_BEFORE ]]; then
    snapshot text "$PINWATCH_BEFORE" before
    snapshot json "$PINWATCH_BEFORE" before
  fi
  snapshot text
  snapshot json
done
if [[ -z ${SNAPSHOTS_ONLY:-} ]]; then
  watch_dashboard
  scrape_latency
fi
printf 'prometheus after the views: rss_mib=%d peak_rss_mib=%d\n' "$(kib_field "$prometheus_pid" VmRSS)" "$(kib_field "$prometheus_pid" VmHWM)"
if [[ -n ${HOLD:-} ]]; then
  echo "holding Prometheus at $prometheus (pid $prometheus_pid) for ${HOLD}s, or until $work/stop exists"
  deadline=$((SECONDS + HOLD))
  while ((SECONDS < deadline)) && [[ ! -e $work/stop ]]; do sleep 1; done
fi
