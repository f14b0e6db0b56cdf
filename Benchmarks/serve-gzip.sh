#!/usr/bin/env bash
# Benchmarks/serve-gzip.sh [HOSTS] [SCRAPES]: /metrics plain against gzip,
# from one real `pinwatch serve` in one run.
#
# HOSTS configured hosts (default 200) all dial one `openssl s_server` on
# 127.0.0.1 under names of their own, so every host has a chain and the
# text carries its chain-level series. After one cycle (interval 1h, so
# one render), curl scrapes /metrics SCRAPES times (default 200) each way:
# plain; `Accept-Encoding: gzip` as Prometheus sends it, body left
# compressed; and `--compressed` (curl decodes). Prints body bytes and
# curl's time_total (median and mean) per way, and each as a ratio of
# plain's; the first gzip scrape of a render, which compresses it, is
# printed apart. Needs curl and openssl. PINWATCH= gives the binary
# (default: the debug build's).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
HOSTS="${1:-200}"
SCRAPES="${2:-200}"
PINWATCH="${PINWATCH:-$(swift build --show-bin-path)/pinwatch}"
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# shellcheck source=Benchmarks/lib/bench-pki.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-pki.sh"
bench_pki "$work" 20
tls_port=$((20000 + RANDOM % 20000))
openssl s_server -accept "127.0.0.1:$tls_port" -cert "$work/leaf.pem" -key "$work/leaf.key" -cert_chain "$work/inter.pem" \
  -www -quiet > "$work/s_server.log" 2>&1 &
pids+=($!)

{
  echo "interval: 1h"
  echo "timeout: 5s"
  echo "concurrency: 16"
  echo "revocation: off"
  echo "trust: $work/root.pem"
  echo "hosts:"
  for ((i = 0; i < HOSTS; i++)); do
    printf '  - {host: h%d.bench.test, port: %d, connect: 127.0.0.1, pins: {ca: [sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=]}}\n' "$i" "$tls_port"
  done
} > "$work/pinwatch.yaml"
port=$((20000 + RANDOM % 20000))
"$PINWATCH" serve --config "$work/pinwatch.yaml" --listen "127.0.0.1:$port" --state off 2> "$work/serve.log" &
pids+=($!)
for _ in $(seq 1 600); do
  curl -sf "127.0.0.1:$port/-/ready" > /dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "127.0.0.1:$port/-/ready" > /dev/null || { echo "serve never became ready" >&2; cat "$work/serve.log" >&2; exit 1; }
chains=$(curl -s "127.0.0.1:$port/metrics" | grep -c '^pinwatch_chain_level_info{' || true)

# One line per scrape: body bytes and seconds.
scrape() { curl -s -o /dev/null -w '%{size_download} %{time_total}\n' "$@" "127.0.0.1:$port/metrics"; }
first_gzip=$(scrape -H 'Accept-Encoding: gzip')
for ((i = 0; i < SCRAPES; i++)); do scrape; done > "$work/plain"
for ((i = 0; i < SCRAPES; i++)); do scrape -H 'Accept-Encoding: gzip'; done > "$work/gzip"
for ((i = 0; i < SCRAPES; i++)); do scrape --compressed; done > "$work/decoded"

# bytes, median ms, mean ms of a file of scrapes
figures() {
  sort -n -k2 "$1" | awk '{ b = $1; t[NR] = $2 * 1000; s += $2 * 1000 }
    END { printf "%d %.3f %.3f\n", b, (NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2), s / NR }'
}
read -r pb pm pa < <(figures "$work/plain")
echo "hosts=$HOSTS chain_levels=$chains scrapes=$SCRAPES per way"
printf '%-34s bytes=%8d median_ms=%7.3f mean_ms=%7.3f\n' "plain" "$pb" "$pm" "$pa"
for way in gzip decoded; do
  read -r b m a < <(figures "$work/$way")
  label=$([[ $way == gzip ]] && echo "gzip (body left compressed)" || echo "gzip, curl --compressed")
  printf '%-34s bytes=%8d median_ms=%7.3f mean_ms=%7.3f  ratio: bytes %.3f, median %.2f, mean %.2f\n' \
    "$label" "$b" "$m" "$a" "$(echo "$b / $pb" | bc -l)" "$(echo "$m / $pm" | bc -l)" "$(echo "$a / $pa" | bc -l)"
done
read -r fb ft <<< "$first_gzip"
printf '%-34s bytes=%8d ms=%7.3f  (ratio to plain median %.2f)\n' "first gzip scrape (compresses)" "$fb" \
  "$(echo "$ft * 1000" | bc -l)" "$(echo "$ft * 1000 / $pm" | bc -l)"
