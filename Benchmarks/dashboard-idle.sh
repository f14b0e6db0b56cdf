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
bench_pki "$work" 400
ca_pin=$(openssl x509 -in "$work/inter.pem" -pubkey -noout | openssl pkey -pubin -outform der 2> /dev/null |
  openssl dgst -sha256 -binary | base64)

tls_port=$((20000 + RANDOM % 20000))
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
}
NGINX
"$NGINX" -q -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log"
for _ in $(seq 50); do [[ -s "$work/nginx.pid" ]] && break; sleep 0.1; done

{
  echo "interval: 1s"
  echo "timeout: 1s"
  echo "revocation: off"
  echo "trust: $work/root.pem"
  echo "hosts:"
  for ((i = 0; i < HOSTS; i++)); do
    printf '  - {host: h%d.bench.test, port: %d, connect: 127.0.0.1, pins: {ca: [sha256/%s]}}\n' "$i" "$tls_port" "$ca_pin"
  done
} > "$work/pinwatch.yaml"

printf -v launch 'PINWATCH_BENCH_TIMING=%q PINWATCH_BENCH_START_NS=$(date +%%s%%N) exec %q watch --no-bell --state off --config %q' \
  "$work/frames" "$PINWATCH" "$work/pinwatch.yaml"
LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -L "$socket" -f /dev/null new-session -d -s bench -x 160 -y 50 "$launch"
pid=$(tmux -L "$socket" display-message -p -t bench '#{pane_pid}')
sleep 5
tmux -L "$socket" capture-pane -p -t bench | grep -q 'h0\.bench\.test' ||
  { echo "the dashboard shows no host:" >&2; tmux -L "$socket" capture-pane -p -t bench >&2; exit 1; }
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"; }
frames() { grep -c '^frame_ms' "$work/frames" 2> /dev/null || true; }
hz=$(getconf CLK_TCK)
t0=$(ticks); f0=$(frames); s0=$(date +%s.%N)
sleep "$WINDOW"
t1=$(ticks); f1=$(frames); s1=$(date +%s.%N)
elapsed=$(echo "$s1 - $s0" | bc -l)
printf 'hosts=%d interval=1s window_s=%.1f cpu=%.2f%% of a core frames=%s\n' "$HOSTS" "$elapsed" \
  "$(echo "($t1 - $t0) * 100 / $hz / $elapsed" | bc -l)" "$((f1 - f0))"
tmux -L "$socket" capture-pane -p -t bench | head -8
