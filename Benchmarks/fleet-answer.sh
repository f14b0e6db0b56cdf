#!/usr/bin/env bash
# Reading a large fleet from Prometheus: one `snapshot --prometheus` against
# a synthetic fleet of N hosts (three chain levels each, every series the
# fleet view reads) served on 127.0.0.1 by fleet-answer/prometheus.py, which
# answers Prometheus' instant-query API by the `query` parameter: the one
# query for every series (`watch`, and `snapshot` before it read in chunks)
# and the snapshot's chunked queries. Prints the size of the one query's
# answer, the queries asked, the wall time and the peak RSS of each run.
#
#   Benchmarks/fleet-answer.sh [HOSTS...]      # default: 2500 5000 10000
#   PINWATCH=.build/release/pinwatch FORMAT=json Benchmarks/fleet-answer.sh 10000 100000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pinwatch=${PINWATCH:-$here/../.build/debug/pinwatch}
format=${FORMAT:-text}
work=$(mktemp -d /tmp/pinwatch-fleet-answer.XXXXXX)
server_pid=
stop_server() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    server_pid=
}
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT

printf 'hosts\tformat\tone answer MiB\tqueries\tseconds\tpeak RSS MiB\n'
for count in ${@:-2500 5000 10000}; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 "$here/fleet-answer/prometheus.py" "$count" "$port" >"$work/server.log" 2>&1 &
    server_pid=$!
    # The fleet is built before the server listens: up to a minute for 100,000 hosts.
    for _ in $(seq 600); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
        sleep 0.1
    done
    names='pinwatch_host_reason_info|pinwatch_host_alert|pinwatch_probe_error|pinwatch_chain_info|pinwatch_ca_level_info|pinwatch_chain_level_info|pinwatch_leaf_not_after_timestamp_seconds|pinwatch_chain_not_after_timestamp_seconds|pinwatch_chain_level_not_after_timestamp_seconds|pinwatch_pin_match|pinwatch_last_cycle_timestamp_seconds|pinwatch_poll_interval_seconds|pinwatch_host_acknowledged|pinwatch_host_labels|pinwatch_address_status|pinwatch_probe_duration_seconds'
    size=$(curl -s -G "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query={__name__=~\"$names\"}" | wc -c)
    curl -s -o /dev/null "http://127.0.0.1:$port/reset"
    status=0
    /usr/bin/time -f '%e %M' -o "$work/time" "$pinwatch" snapshot --prometheus "http://127.0.0.1:$port" \
        --format "$format" --width 120 >"$work/out" 2>"$work/stderr" || status=$?
    queries=$(curl -s "http://127.0.0.1:$port/asked")
    if [ "$status" -ne 0 ]; then
        printf '%s\t%s\t%.1f\t%s\tfailed: %s\n' "$count" "$format" "$(echo "$size / 1048576" | bc -l)" "$queries" "$(head -c 200 "$work/stderr")"
    else
        read -r seconds kib <"$work/time"
        printf '%s\t%s\t%.1f\t%s\t%s\t%d\n' "$count" "$format" "$(echo "$size / 1048576" | bc -l)" "$queries" "$seconds" "$((kib / 1024))"
    fi
    stop_server
done
