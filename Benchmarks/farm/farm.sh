#!/usr/bin/env bash
# Benchmarks/farm/farm.sh start N | stop: nginx serving hostI.test on
# FARM_ADDR:PORT_BASE+I (1 ≤ I ≤ N; FARM_ADDR 127.0.0.1, PORT_BASE 20000),
# each with its own leaf and the intermediate, from the PKI make-pki.sh
# made. Two workers, TLS 1.2 and 1.3; everything (config, pid, logs) under
# FARM_DIR ($BENCH_WORK/farm), and only that nginx is ever stopped, by the
# PID it wrote. latency.sh runs it inside a network namespace, on that
# namespace's own address. variants.sh sets FARM_ADDR2 (each host listens
# there too) and FARM_RSA (a folder of rsa-chainI.pem and rsa-key.pem: each
# host also holds an RSA certificate, picked by what the client offers).
set -euo pipefail
work="${BENCH_WORK:-/tmp/pinwatch-bench}"
farm="${FARM_DIR:-$work/farm}" pki="$work/pki/leaves"
port_base=${PORT_BASE:-20000}
addr=${FARM_ADDR:-127.0.0.1}

stop() {
  [[ -f "$farm/nginx.pid" ]] || return 0
  local pid
  pid=$(cat "$farm/nginx.pid")
  kill -QUIT "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$farm/nginx.pid"
}

start() {
  local n=${1:?usage: farm.sh start N}
  [[ -f "$pki/chain$n.pem" ]] || { echo "farm: no PKI for $n hosts (run make-pki.sh $n)" >&2; exit 2; }
  stop
  mkdir -p "$farm/logs"
  {
    # As root, the workers would otherwise drop to nobody and lose the keys.
    [[ $EUID -eq 0 ]] && echo "user root;"
    echo "worker_processes 2;"
    # Each listening socket takes a connection slot in every worker.
    echo "worker_rlimit_nofile $((n + 65536));"
    echo "pid $farm/nginx.pid;"
    echo "error_log $farm/logs/error.log warn;"
    echo "events { worker_connections $((n + 8192)); }"
    echo "http {"
    echo "  access_log off;"
    echo "  ssl_protocols TLSv1.2 TLSv1.3;"
    echo "  ssl_session_cache off; ssl_session_tickets off;"
    for ((i = 1; i <= n; i++)); do
      echo "  server { listen $addr:$((port_base + i)) ssl; server_name host$i.test;"
      [[ -n "${FARM_ADDR2:-}" ]] && echo "    listen $FARM_ADDR2:$((port_base + i)) ssl;"
      [[ -n "${FARM_RSA:-}" ]] && echo "    ssl_certificate $FARM_RSA/rsa-chain$i.pem; ssl_certificate_key $FARM_RSA/rsa-key.pem;"
      echo "    ssl_certificate $pki/chain$i.pem; ssl_certificate_key $pki/key$i.pem; return 204; }"
    done
    echo "}"
  } > "$farm/nginx.conf"
  nginx -q -p "$farm" -c "$farm/nginx.conf" -e "$farm/logs/error.log"
  # Ready when the last port answers a TLS handshake (bounded: 10 s, and
  # 1 s more per 100 hosts: 10,000 keys take nginx a while to load).
  for _ in $(seq $((100 + n / 10))); do
    if timeout 2 openssl s_client -connect "$addr:$((port_base + n))" -servername "host$n.test" </dev/null >/dev/null 2>&1; then
      echo "[farm] nginx on $addr:$((port_base + 1))-$((port_base + n)) (PID $(cat "$farm/nginx.pid"))" >&2
      return 0
    fi
    sleep 0.1
  done
  echo "farm: nginx did not come up; $farm/logs/error.log:" >&2
  tail -5 "$farm/logs/error.log" >&2
  stop
  exit 1
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop ;;
  *) echo "usage: farm.sh start N | stop" >&2; exit 2 ;;
esac
