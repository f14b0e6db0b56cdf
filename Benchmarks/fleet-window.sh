#!/usr/bin/env bash
# Bytes per refresh of `watch --prometheus`: a real Prometheus (Debian's)
# scrapes a static exposition of N hosts (in the exporter's shape: a
# chain of two levels as one pinwatch_chain_info a host, its CA level one
# pinwatch_ca_level_info for the fleet; every family the fleet view
# reads, a tenth of the hosts critical) from python3's
# http.server on 127.0.0.1. "Whole fleet" is the one instant query that
# asks for every series (what `snapshot --prometheus` reads, and what the
# dashboard read before it loaded a window), measured by curl; "window" is
# what the dashboard reads per refresh now, from its own log
# (PINWATCH_BENCH_TIMING: `fleet_refresh_bytes B queries Q rows R ms T`,
# T from the first query asked to the rows on the dashboard's state), under
# a tmux server of its own, 200×50, window of its default size.
# Bytes are the answers' JSON as parsed (Prometheus gzips them on the wire).
#
#   Benchmarks/fleet-window.sh [HOSTS...]      # default: 1000 10000
#   PINWATCH=path/to/pinwatch Benchmarks/fleet-window.sh 10000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pinwatch=${PINWATCH:-$here/../.build/debug/pinwatch}
prometheus=${PROMETHEUS:-/usr/bin/prometheus}
work=$(mktemp -d /tmp/pinwatch-fleet-window.XXXXXX)
socket="pinwatch-fleet-window-$$"
server_pid=
prometheus_pid=
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    [ -n "$prometheus_pid" ] && kill "$prometheus_pid" 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

exposition() {
    python3 - "$1" <<'PY'
import sys, time
n = int(sys.argv[1])
spki = "B" * 43 + "="
out = [f"pinwatch_last_cycle_timestamp_seconds {time.time()}", "pinwatch_poll_interval_seconds 30",
       f'pinwatch_ca_level_info{{ca_chain="c0",level="1",role="intermediate",subject="CN=level1.ca",spki_sha256="{spki}"}} 1']
for i in range(n):
    h = f'host="host{i}.test",port="443"'
    bad = i % 10 == 0
    status, severity = ("blocked", "critical") if bad else ("ok", "ok")
    out.append(f'pinwatch_host_reason_info{{{h},status="{status}",severity="{severity}",headline="{status}",'
               f'tiers="{"" if bad else "ca"}",reason="a CA-tier pin matches: survives leaf renewals"}} 1')
    out.append(f'pinwatch_host_labels{{{h},team="team-{i % 20}"}} 1')
    out.append(f'pinwatch_chain_info{{{h},spki_sha256="{spki}",subject="CN=host{i}.test",leaf_pin="",'
               f'ca_pin="{"mismatch" if bad else "match"}",ca_pin_levels="{"" if bad else "1"}",ca_chain="c0"}} 1')
    out.append(f'pinwatch_leaf_not_after_timestamp_seconds{{{h}}} 1830000000')
    out.append(f'pinwatch_chain_not_after_timestamp_seconds{{{h},level="0",role="leaf"}} 1830000000')
    out.append(f'pinwatch_probe_duration_seconds{{{h}}} 0.05')
    if bad:
        out.append(f'pinwatch_host_alert{{{h},alert="blocked"}} 1')
print("\n".join(out))
PY
}

# FleetSnapshot.families: what one query of the whole fleet asks for.
names='pinwatch_host_reason_info|pinwatch_host_alert|pinwatch_probe_error|pinwatch_chain_info|pinwatch_ca_level_info|pinwatch_chain_level_info|pinwatch_leaf_not_after_timestamp_seconds|pinwatch_chain_not_after_timestamp_seconds|pinwatch_chain_level_not_after_timestamp_seconds|pinwatch_pin_match|pinwatch_last_cycle_timestamp_seconds|pinwatch_poll_interval_seconds|pinwatch_host_acknowledged|pinwatch_host_labels|pinwatch_address_status|pinwatch_probe_duration_seconds'

printf 'hosts\twhole fleet: bytes (gzip on the wire), curl s\tsnapshot --prometheus: s, peak RSS MiB\twindow: bytes per refresh, queries, rows, ms\n'
for n in ${@:-1000 10000}; do
    rm -rf "$work/root" "$work/tsdb" "$work/log"
    mkdir -p "$work/root"
    exposition "$n" >"$work/root/metrics"
    metrics_port=$(free_port)
    python3 -m http.server --bind 127.0.0.1 --directory "$work/root" "$metrics_port" >/dev/null 2>&1 &
    server_pid=$!
    prom_port=$(free_port)
    cat >"$work/prometheus.yml" <<EOF
global: {scrape_interval: 5s, scrape_timeout: 5s}
scrape_configs:
  - job_name: pinwatch
    static_configs: [{targets: ["127.0.0.1:$metrics_port"]}]
EOF
    "$prometheus" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
        --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
    prometheus_pid=$!
    url="http://127.0.0.1:$prom_port"
    # Until a scrape holds every host.
    for _ in $(seq 120); do
        count=$(curl -s "$url/api/v1/query" --data-urlencode 'query=count(pinwatch_host_reason_info)' |
            python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null || echo 0)
        [ "$count" = "$n" ] && break
        sleep 1
    done
    [ "$count" = "$n" ] || { echo "Prometheus holds $count of $n hosts" >&2; exit 1; }

    whole=$(curl -s -o /dev/null -w '%{size_download}' "$url/api/v1/query" --data-urlencode "query={__name__=~\"$names\"}")
    whole_s=$(curl -s -o /dev/null -w '%{time_total}' "$url/api/v1/query" --data-urlencode "query={__name__=~\"$names\"}")
    wire=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip' "$url/api/v1/query" \
        --data-urlencode "query={__name__=~\"$names\"}")

    # The whole-fleet path (`snapshot --prometheus`: one query, every row
    # parsed), what every refresh of the dashboard cost before the window.
    if /usr/bin/time -f '%e %M' -o "$work/time" "$pinwatch" snapshot --prometheus "$url" --format text --width 120 \
        >/dev/null 2>"$work/stderr"; then
        read -r seconds kib <"$work/time"
        snapshot="$seconds, $((kib / 1024))"
    else
        snapshot="refused: $(head -c 80 "$work/stderr")"
    fi

    launch="PINWATCH_BENCH_TIMING=$work/log PINWATCH_BENCH_START_NS=$(date +%s%N) $pinwatch watch --prometheus $url --interval 2s --no-bell"
    LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -L "$socket" -f /dev/null new-session -d -s bench -x 200 -y 50 "$launch"
    for _ in $(seq 120); do
        refreshes=$(grep -c fleet_refresh_bytes "$work/log" 2>/dev/null) || true
        [ "${refreshes:-0}" -ge 3 ] && break
        sleep 0.5
    done
    tmux -L "$socket" kill-server 2>/dev/null || true
    window=$(grep fleet_refresh_bytes "$work/log" | tail -1 | awk '{print $2 "\t" $4 "\t" $6 "\t" $8}')
    [ -n "$window" ] || { echo "the dashboard logged no refresh" >&2; exit 1; }
    printf '%s\t%s (%s), %s\t%s\t%s\n' "$n" "$whole" "$wire" "$whole_s" "$snapshot" "$window"

    kill "$prometheus_pid" "$server_pid" 2>/dev/null || true
    wait "$prometheus_pid" "$server_pid" 2>/dev/null || true
    prometheus_pid=
    server_pid=
done
