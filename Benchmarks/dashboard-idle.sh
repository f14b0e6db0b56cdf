#!/usr/bin/env bash
# Benchmarks/dashboard-idle.sh [HOSTS] [SECONDS]: the CPU one `watch`
# takes on a steady fleet, and the frames it paints.
#
# HOSTS configured hosts (default 60) all dial one nginx on 127.0.0.1 (a
# wildcard leaf under an intermediate; every host is ok, nothing changes)
# at `interval: 1s`; `watch` runs under a tmux server of its own (160×50).
# After a warm-up of 5 s, the process's CPU time (user + system, from
# /proc) is read over SECONDS (default 30) and printed as a share of one
# core, with the frames painted in that window when the binary says them
# (PINWATCH_BENCH_TIMING). PINWATCH= gives the binary (default: the debug
# build's); run it on the build before a change and after, in one sitting,
# for a ratio. Needs tmux, openssl and nginx.
#
# CRL=1 gives the chain CRL distribution points, as public CAs' chains
# have, and polls with `revocation: on` (the default): the same nginx
# serves both CRLs over HTTP on 127.0.0.1, fetched once and kept until
# their nextUpdate.
#
# REFERENCE=1 measures, in place of `watch`, the handshakes alone: the C
# reference (Benchmarks/reference/tlsscan.c, built here with gcc) doing the
# same hosts' handshakes against the same nginx, verified against the same
# root, one round started every second: the floor pinwatch's figure stands on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
HOSTS="${1:-60}"
WINDOW="${2:-30}"
PINWATCH="${PINWATCH:-$(swift build --show-bin-path)/pinwatch}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
work=$(mktemp -d)
socket="pinwatch-idle-$$"
cleanup() {
  tmux -L "$socket" kill-server 2> /dev/null || true
  [[ -f "$work/nginx.pid" ]] && kill -QUIT "$(cat "$work/nginx.pid")" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=Benchmarks/lib/bench-pki.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-pki.sh"
tls_port=$((20000 + RANDOM % 20000))
crl_port=$((tls_port + 1))
crl=0
[[ "${CRL:-0}" == 1 ]] && crl=1
if ((crl)); then bench_pki "$work" 400 "http://127.0.0.1:$crl_port"; else bench_pki "$work" 400; fi
ca_pin=$(openssl x509 -in "$work/inter.pem" -pubkey -noout | openssl pkey -pubin -outform der 2> /dev/null |
  openssl dgst -sha256 -binary | base64)

mkdir -p "$work/logs"
cat > "$work/nginx.conf" << NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$tls_port ssl; ssl_certificate $work/chain.pem; ssl_certificate_key $work/leaf.key; return 204; }
  server { listen 127.0.0.1:$crl_port; root $work; location ~ \\.crl\$ { } location / { return 404; } }
}
NGINX
"$NGINX" -q -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log"
for _ in $(seq 50); do [[ -s "$work/nginx.pid" ]] && break; sleep 0.1; done

{
  echo "interval: 1s"
  echo "timeout: 1s"
  if ((crl)); then echo "revocation: on"; else echo "revocation: off"; fi
  echo "trust: $work/root.pem"
  echo "hosts:"
  for ((i = 0; i < HOSTS; i++)); do
    printf '  - {host: h%d.bench.test, port: %d, connect: 127.0.0.1, pins: {ca: [sha256/%s]}}\n' "$i" "$tls_port" "$ca_pin"
  done
} > "$work/pinwatch.yaml"

reference=0
[[ "${REFERENCE:-0}" == 1 ]] && reference=1
if ((reference)); then
  gcc -O2 -Wall -o "$work/tlsscan" Benchmarks/reference/tlsscan.c -lssl -lcrypto -lpthread
  "$work/tlsscan" -n "$HOSTS" -c "$HOSTS" -r "$work/root.pem" -P "$tls_port" -d bench.test -R $((WINDOW + 10)) -o /dev/null &
  pid=$!
  sleep 5
else
  printf -v launch 'PINWATCH_BENCH_TIMING=%q PINWATCH_BENCH_START_NS=$(date +%%s%%N) exec %q watch --no-bell --state off --config %q' \
    "$work/frames" "$PINWATCH" "$work/pinwatch.yaml"
  LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -L "$socket" -f /dev/null new-session -d -s bench -x 160 -y 50 "$launch"
  pid=$(tmux -L "$socket" display-message -p -t bench '#{pane_pid}')
  # The first cycle's rows, awaited for at most 30 s (a loaded machine
  # starts slowly), then the same 5-s warm-up.
  for _ in $(seq 60); do
    tmux -L "$socket" capture-pane -p -t bench | grep -q 'h0\.bench\.test' && break
    sleep 0.5
  done
  tmux -L "$socket" capture-pane -p -t bench | grep -q 'h0\.bench\.test' ||
    { echo "the dashboard shows no host:" >&2; tmux -L "$socket" capture-pane -p -t bench >&2; exit 1; }
  sleep 5
fi
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"; }
frames() { grep -c '^frame_ms' "$work/frames" 2> /dev/null || true; }
hz=$(getconf CLK_TCK)
t0=$(ticks); f0=$(frames); s0=$(date +%s.%N)
sleep "$WINDOW"
t1=$(ticks); f1=$(frames); s1=$(date +%s.%N)
elapsed=$(echo "$s1 - $s0" | bc -l)
cpu=$(echo "($t1 - $t0) * 100 / $hz / $elapsed" | bc -l)
if ((reference)); then
  kill "$pid"
  wait "$pid" 2> /dev/null || true
  printf 'reference hosts=%d interval=1s window_s=%.1f cpu=%.2f%% of a core\n' "$HOSTS" "$elapsed" "$cpu"
else
  printf 'hosts=%d interval=1s window_s=%.1f cpu=%.2f%% of a core frames=%s\n' "$HOSTS" "$elapsed" "$cpu" "$((f1 - f0))"
  tmux -L "$socket" capture-pane -p -t bench | head -8
fi
