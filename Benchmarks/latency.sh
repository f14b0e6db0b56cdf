#!/usr/bin/env bash
# Benchmarks/latency.sh [--quick]: a fleet behind real network latency.
#
# The farm (nginx, one key per leaf) runs in a network namespace of this
# script's own, the client in a second one, and every packet between them
# is delayed by RTT/2 each way: `tc qdisc ... netem delay` on a veth pair
# where the kernel has netem, else Benchmarks/latency/delayline.c, the same
# fixed delay in user space through a TUN device in each namespace (kernels
# built without CONFIG_NET_SCH_NETEM, such as the one this was written on).
# Addresses are the namespaces' own (10.250.0.1 client, 10.250.0.2 farm);
# nothing outside the two namespaces is touched, and both are deleted on exit.
#
# One cycle over HOSTS hosts at each concurrency, by `pinwatch snapshot` and
# by parallel curl (a blackbox prober's method), each run checked for
# correctness (every host ok and its pins right; every curl 204 and
# verified). A latency-bound cycle cannot be shorter than
#   floor = hosts × round trips per probe × RTT / concurrency
# (pinwatch: TCP + TLS 1.3 = 2; curl: + the HTTP request = 3); the table
# gives measured / floor, and the CPU every party used (client, farm, delay
# line), whose sum over the cores is a second floor when CPU, not the
# network, is the limit. A calibration row at concurrency 1 shows the
# round-trip counts are right.
#
# Env: HOSTS (10000), RTT_MS (50), CONCURRENCIES ("64 256 1000"), TIMEOUT_S (10),
#      SKIP_DEPS=1, PINWATCH (a prebuilt binary), BENCH_WORK (/tmp/pinwatch-bench).
# --quick: 300 hosts at concurrency 64 (a smoke test, ~15 s after the build).
# Needs root (network namespaces).
set -euo pipefail

BENCH_SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$BENCH_SELF/.." && pwd)"
export BENCH_WORK="${BENCH_WORK:-/tmp/pinwatch-bench}"
FARM="$BENCH_SELF/farm" LIB="$BENCH_SELF/lib" LATENCY="$BENCH_SELF/latency"
COMMAND_LINE="Benchmarks/latency.sh${*:+ $*}"

HOSTS="${HOSTS:-10000}" RTT_MS="${RTT_MS:-50}" CONCURRENCIES="${CONCURRENCIES:-64 256 1000}"
TIMEOUT_S="${TIMEOUT_S:-10}" CALIBRATION_HOSTS=20
case "${1:-}" in
  --quick) HOSTS=300 CONCURRENCIES=64 ;;
  "") ;;
  *) echo "usage: Benchmarks/latency.sh [--quick]" >&2; exit 2 ;;
esac
[[ $EUID -eq 0 ]] || { echo "latency.sh: needs root for its network namespaces" >&2; exit 2; }
(( RTT_MS >= 2 && RTT_MS % 2 == 0 )) || { echo "latency.sh: RTT_MS must be even and ≥ 2" >&2; exit 2; }
RUN_TIMEOUT=600
CLIENT_NS="pwbench-client-$$" FARM_NS="pwbench-farm-$$"
CLIENT_ADDR=10.250.0.1 FARM_ADDR=10.250.0.2
export FARM_DIR="$BENCH_WORK/latency-farm"
# The client and nginx need a socket per host in flight, nginx one per port.
ulimit -n "$(ulimit -Hn)"

log() { printf '[latency %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

prepare() {
  if [[ "${SKIP_DEPS:-0}" != 1 ]]; then
    "$FARM/install-deps.sh"
    command -v curl >/dev/null && command -v ip >/dev/null && command -v tc >/dev/null ||
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q curl iproute2 >&2
  fi
  mkdir -p "$BENCH_WORK/bin"
  DELAYLINE="$BENCH_WORK/bin/delayline"
  gcc -O2 -Wall -Wextra -o "$DELAYLINE" "$LATENCY/delayline.c"
  if [[ -z "${PINWATCH:-}" ]]; then
    command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
    log "swift build -c release --static-swift-stdlib --product pinwatch"
    (cd "$REPO" && swift build -c release --static-swift-stdlib --product pinwatch >&2)
    PINWATCH="$(cd "$REPO" && swift build -c release --static-swift-stdlib --show-bin-path)/pinwatch"
  fi
  [[ -x "$PINWATCH" ]] || { echo "no pinwatch binary at $PINWATCH" >&2; exit 2; }
  "$FARM/make-pki.sh" "$HOSTS"
  EXPECTED="$BENCH_WORK/pki/expected-pins.tsv" ROOT_PEM="$BENCH_WORK/pki/root.pem"
}

NAMESPACES=0 DELAYLINE_PID="" FARM_STARTED=0
cleanup() {
  if (( FARM_STARTED )); then ip netns exec "$FARM_NS" "$FARM/farm.sh" stop || true; fi
  if [[ -n "$DELAYLINE_PID" ]]; then
    kill -TERM "$DELAYLINE_PID" 2>/dev/null || true
    wait "$DELAYLINE_PID" 2>/dev/null || true
  fi
  if (( NAMESPACES )); then
    ip netns del "$CLIENT_NS" 2>/dev/null || true
    ip netns del "$FARM_NS" 2>/dev/null || true
  fi
}

# netem on a veth pair when the kernel has it; else the user-space delay line.
make_network() {
  local half=$((RTT_MS / 2))
  ip netns add "$CLIENT_NS"
  NAMESPACES=1
  ip netns add "$FARM_NS"
  ip -n "$CLIENT_NS" link set lo up
  ip -n "$FARM_NS" link set lo up
  ip link add pwc0 netns "$CLIENT_NS" type veth peer name pwf0 netns "$FARM_NS"
  if tc -n "$CLIENT_NS" qdisc add dev pwc0 root netem delay "${half}ms" limit 100000 2>/dev/null &&
    tc -n "$FARM_NS" qdisc add dev pwf0 root netem delay "${half}ms" limit 100000; then
    LINK="veth pair, tc netem delay ${half}ms each way"
    ip -n "$CLIENT_NS" addr add "$CLIENT_ADDR/30" dev pwc0
    ip -n "$FARM_NS" addr add "$FARM_ADDR/30" dev pwf0
    ip -n "$CLIENT_NS" link set pwc0 up
    ip -n "$FARM_NS" link set pwf0 up
  else
    ip -n "$CLIENT_NS" link del pwc0
    LINK="TUN pair through Benchmarks/latency/delayline.c, ${half}ms each way (this kernel has no netem)"
    local ready="$BENCH_WORK/delayline.ready"
    "$DELAYLINE" "$CLIENT_NS" pwc0 "$FARM_NS" pwf0 "$half" > "$ready" 2> "$RESULTS/delayline.log" &
    DELAYLINE_PID=$!
    for _ in $(seq 50); do grep -q ready "$ready" 2>/dev/null && break; sleep 0.1; done
    grep -q ready "$ready" || { echo "latency.sh: the delay line did not start:" >&2; cat "$RESULTS/delayline.log" >&2; exit 1; }
    ip -n "$CLIENT_NS" addr add "$CLIENT_ADDR" peer "$FARM_ADDR" dev pwc0
    ip -n "$FARM_NS" addr add "$FARM_ADDR" peer "$CLIENT_ADDR" dev pwf0
    ip -n "$CLIENT_NS" link set pwc0 up
    ip -n "$FARM_NS" link set pwf0 up
  fi
  log "network: $LINK"
}

# CPU seconds (user + system) the farm's nginx workers and the delay line have used so far.
farm_cpu() {
  local pids
  pids=$(pgrep -P "$(cat "$FARM_DIR/nginx.pid")" | tr '\n' ' ')
  process_cpu $pids
}
link_cpu() { if [[ -n "$DELAYLINE_PID" ]]; then process_cpu "$DELAYLINE_PID"; else echo 0; fi; }
process_cpu() {
  local ticks=0 pid stat
  for pid in "$@"; do
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    # Fields after the ")" closing the command name: utime and stime are the 12th and 13th.
    read -r -a fields <<<"${stat##*) }"
    ticks=$((ticks + fields[11] + fields[12]))
  done
  python3 -c "print($ticks / $(getconf CLK_TCK))"
}

# timed TOOL HOSTS CONCURRENCY ROUND_TRIPS VERIFY... -- COMMAND...: one run in
# the client namespace, checked, one row of runs.tsv.
timed() {
  local tool="$1" hosts="$2" concurrency="$3" round_trips="$4"; shift 4
  local verify=()
  while [[ "$1" != "--" ]]; do verify+=("$1"); shift; done
  shift
  local name="$tool-$hosts-c$concurrency"
  local out="$RESULTS/out/$name.out" timing="$RESULTS/out/$name.time"
  local farm_before link_before farm_after link_after
  farm_before=$(farm_cpu) link_before=$(link_cpu)
  if ! ip netns exec "$CLIENT_NS" python3 "$LIB/measure.py" "$timing" "$out" "$RUN_TIMEOUT" -- "$@"; then
    echo "FAIL: $name: command failed ($(cat "$timing")): $*" >&2; exit 1
  fi
  farm_after=$(farm_cpu) link_after=$(link_cpu)
  "${verify[@]}" >&2 || { echo "FAIL: $name: wrong output" >&2; exit 1; }
  local wall user sys rss _
  read -r wall user sys rss _ < "$timing"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$hosts" "$concurrency" "$round_trips" "$RTT_MS" \
    "$wall" "$(python3 -c "print($user + $sys)")" "$(python3 -c "print($farm_after - $farm_before)")" \
    "$(python3 -c "print($link_after - $link_before)")" "$rss" >> "$RESULTS/runs.tsv"
  log "$name: ${wall}s wall, ${rss} KB peak"
}

run_pinwatch() {
  local hosts="$1" concurrency="$2" config="$RESULTS/pinwatch-$1-c$2.yaml"
  python3 "$LIB/farm_config.py" "$hosts" "$EXPECTED" "$ROOT_PEM" --connect "$FARM_ADDR" \
    --concurrency "$concurrency" --timeout "${TIMEOUT_S}s" > "$config"
  timed pinwatch "$hosts" "$concurrency" 2 python3 "$LIB/check_snapshot.py" "$RESULTS/out/pinwatch-$hosts-c$concurrency.out" "$hosts" "$EXPECTED" -- \
    "$PINWATCH" snapshot --format json --config "$config" --state off
}

run_curl() {
  local hosts="$1" concurrency="$2"
  timed curl "$hosts" "$concurrency" 3 python3 "$LATENCY/check_curl.py" "$RESULTS/out/curl-$hosts-c$concurrency.out" "$hosts" -- \
    "$LATENCY/parallel-curl.sh" "$hosts" "$concurrency" "$FARM_ADDR" "$ROOT_PEM"
}

main() {
  trap cleanup EXIT
  prepare
  RESULTS="$BENCH_WORK/results/latency-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$RESULTS/out"
  ln -sfn "$RESULTS" "$BENCH_WORK/results/latency-latest"
  printf 'tool\thosts\tconcurrency\tround_trips\trtt_ms\twall_s\tclient_cpu_s\tfarm_cpu_s\tlink_cpu_s\tmaxrss_kb\n' > "$RESULTS/runs.tsv"
  log "results: $RESULTS"
  make_network
  FARM_STARTED=1
  ip netns exec "$FARM_NS" env FARM_ADDR="$FARM_ADDR" "$FARM/farm.sh" start "$HOSTS"
  run_pinwatch "$CALIBRATION_HOSTS" 1
  run_curl "$CALIBRATION_HOSTS" 1
  local concurrency
  for concurrency in $CONCURRENCIES; do
    run_pinwatch "$HOSTS" "$concurrency"
    run_curl "$HOSTS" "$concurrency"
  done
  {
    echo "Command: \`$COMMAND_LINE\` (HOSTS=$HOSTS, RTT_MS=$RTT_MS, one run each; $(nproc) cores, $(uname -sr), pinwatch $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown))"
    echo "Network: $LINK"
    echo
    python3 "$LATENCY/latency_table.py" "$RESULTS/runs.tsv" "$(nproc)"
  } > "$RESULTS/table.md"
  cleanup
  DELAYLINE_PID="" FARM_STARTED=0 NAMESPACES=0
  if [[ -s "$RESULTS/delayline.log" ]]; then sed 's/^/  /' "$RESULTS/delayline.log" >> "$RESULTS/table.md"; fi
  cat "$RESULTS/table.md"
  log "raw numbers and table: $RESULTS"
}

main
