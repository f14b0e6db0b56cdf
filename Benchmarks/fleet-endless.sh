#!/usr/bin/env bash
# A Prometheus answer that never ends: a python3 server on 127.0.0.1 sends a
# JSON head and then 64 KiB blocks of spaces as fast as it can, and each run
# of `snapshot --prometheus` (with `timeout: 20s`) must stop at the 64 MiB
# bound. Prints the wall time and peak RSS of each run. With --busy, both
# cores are kept busy by `yes` for the runs, as they were when CI failed.
#
#   Benchmarks/fleet-endless.sh [--busy] [RUNS]      # default: 3 runs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pinwatch=${PINWATCH:-$here/../.build/debug/pinwatch}
busy=false
[ "${1:-}" = "--busy" ] && { busy=true; shift; }
runs=${1:-3}
work=$(mktemp -d /tmp/pinwatch-fleet-endless.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

python3 - "$work/port" <<'PY' &
import socket, sys, threading
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
open(sys.argv[1], "w").write(str(server.getsockname()[1]))
head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        b'{"status":"success","data":')
block = b" " * 65536
def serve(connection):
    try:
        connection.recv(65536)
        connection.sendall(head)
        while True:
            connection.sendall(block)
    except OSError:
        pass
    finally:
        connection.close()
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
PY
pids+=($!)
for _ in $(seq 1 50); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "fleet-endless: the server did not start" >&2; exit 1; }
printf 'timeout: 20s\nhosts: []\n' >"$work/pinwatch.yaml"

if $busy; then
    yes >/dev/null & pids+=($!)
    yes >/dev/null & pids+=($!)
fi
printf 'run\tseconds\tpeak RSS KiB\n'
for run in $(seq 1 "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$pinwatch" snapshot --config "$work/pinwatch.yaml" \
        --prometheus "http://127.0.0.1:$(cat "$work/port")" --format text >/dev/null 2>"$work/stderr" || true
    grep -q "more than 64 MiB" "$work/stderr" || { echo "fleet-endless: run $run: $(cat "$work/stderr")" >&2; exit 1; }
    printf '%s\t%s\t%s\n' "$run" $(tail -1 "$work/time")
done
