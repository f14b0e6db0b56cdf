#!/usr/bin/env bash
# Reading a large Prometheus answer: one `snapshot --prometheus` against a
# static answer of N hosts (three chain levels each, every series the fleet
# view reads), served by python3's http.server on 127.0.0.1. Prints the
# answer's size, the wall time and the peak RSS of each run.
#
#   Benchmarks/fleet-answer.sh [HOSTS...]      # default: 2500 5000 10000
#   PINWATCH=path/to/pinwatch Benchmarks/fleet-answer.sh 10000
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pinwatch=${PINWATCH:-$here/../.build/debug/pinwatch}
work=$(mktemp -d /tmp/pinwatch-fleet-answer.XXXXXX)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

answer() {
    python3 - "$1" <<'PY'
import json, sys
n = int(sys.argv[1])
spki = "B" * 43 + "="
result = []
def s(labels, value="1"):
    result.append({"metric": labels, "value": [1800000000.5, value]})
s({"__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "serve:1"}, "1799999990")
for i in range(n):
    host = {"host": f"host{i}.test", "port": "443", "instance": "serve:1", "job": "pinwatch"}
    s({**host, "__name__": "pinwatch_host_reason_info", "status": "ok", "severity": "ok", "headline": "ok",
       "tiers": "ca", "reason": "a CA-tier pin matches: survives leaf renewals"})
    s({**host, "__name__": "pinwatch_leaf_not_after_timestamp_seconds"}, "1830000000")
    s({**host, "__name__": "pinwatch_chain_not_after_timestamp_seconds", "level": "0", "role": "leaf"}, "1830000000")
    for level, role in enumerate(["leaf", "intermediate", "root"]):
        pin = {"pin": "match", "tier": "ca"} if level == 1 else {"pin": "", "tier": ""}
        s({**host, "__name__": "pinwatch_chain_level_info", "level": str(level), "role": role,
           "subject": f"CN=level{level}.host{i}.test", "spki_sha256": spki, **pin})
print(json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}))
PY
}

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/root/api/v1"
python3 -m http.server --bind 127.0.0.1 --directory "$work/root" "$port" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
done

printf 'hosts\tanswer MiB\tseconds\tpeak RSS MiB\n'
for n in "${@:-2500 5000 10000}"; do
    for count in $n; do
        answer "$count" >"$work/root/api/v1/query"
        size=$(stat -c %s "$work/root/api/v1/query")
        /usr/bin/time -f '%e %M' -o "$work/time" "$pinwatch" snapshot --prometheus "http://127.0.0.1:$port" \
            --format text --width 120 >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
        read -r seconds kib <"$work/time"
        printf '%s\t%.1f\t%s\t%d\n' "$count" "$(echo "$size / 1048576" | bc -l)" "$seconds" "$((kib / 1024))"
    done
done
