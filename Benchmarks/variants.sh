#!/usr/bin/env bash
# Benchmarks/variants.sh [N]: what `addresses: all` and `key_types:` cost.
# The farm (N hosts, default 1,000) with every host on 127.0.0.1 and
# 127.0.0.2 and holding an ECDSA and an RSA certificate (the RSA leaves
# under an RSA intermediate of the farm root, all on one RSA key: signing
# only); the names resolve to both addresses through a hosts file bound over
# /etc/hosts in a private mount namespace (root, unshare). One poller
# (pinwatch-cycle-bench, CYCLES cycles, default 3) per configuration:
#   first/one offer   the default: one handshake per host
#   all/two key types addresses: all, key_types: [ecdsa, rsa]
# Prints a Markdown table: handshakes per cycle (chains verified or found in
# the cache, from the bench's counters) and CPU per cycle, and their ratio.
# Bounded: the farm is stopped by its PID on exit.
set -euo pipefail
n=${1:-1000}
cycles=${CYCLES:-3}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${BENCH_WORK:-/tmp/pinwatch-bench}"
export BENCH_WORK="$work" FARM_DIR="$work/farm-variants"
bench="${CYCLE_BENCH:-$(cd "$here/.." && swift build --show-bin-path)/pinwatch-cycle-bench}"
[[ -x "$bench" ]] || { echo "variants: no $bench (swift build, or set CYCLE_BENCH)" >&2; exit 2; }
[[ $EUID -eq 0 ]] || { echo "variants: needs root (a private mount namespace for the hosts file)" >&2; exit 2; }

"$here/farm/make-pki.sh" "$n"
pki="$work/pki"
rsa="$work/pki-rsa"
if [[ ! -f "$rsa/count" ]] || (( $(cat "$rsa/count") < n )); then
  rm -rf "$rsa" && mkdir -p "$rsa"
  echo "[variants] RSA intermediate and $n RSA leaves in $rsa" >&2
  openssl genrsa -out "$rsa/int.key" 2048 2>/dev/null
  openssl genrsa -out "$rsa/rsa-key.pem" 2048 2>/dev/null
  openssl req -new -key "$rsa/int.key" -subj "/O=pinwatch bench/CN=pinwatch bench RSA intermediate" 2>/dev/null |
    openssl x509 -req -CA "$pki/root.pem" -CAkey "$pki/root.key" -set_serial 7 -days 1825 -sha256 -out "$rsa/int.pem" \
      -extfile <(printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n') 2>/dev/null
  rsa_leaf() {
    openssl req -new -key "$2/rsa-key.pem" -subj "/CN=host$1.test" 2>/dev/null |
      openssl x509 -req -CA "$2/int.pem" -CAkey "$2/int.key" -set_serial "$((200000 + $1))" -days 90 -sha256 \
        -extfile <(printf 'subjectAltName=DNS:host%s.test\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$1") 2>/dev/null
    cat "$2/int.pem"
  }
  export -f rsa_leaf
  seq 1 "$n" | xargs -P 2 -I{} bash -c "rsa_leaf {} '$rsa' > '$rsa/rsa-chain{}.pem'"
  echo "$n" > "$rsa/count"
fi

stop_farm() { "$here/farm/farm.sh" stop; }
trap stop_farm EXIT
FARM_ADDR2=127.0.0.2 FARM_RSA="$rsa" "$here/farm/farm.sh" start "$n"

out="$work/variants" && mkdir -p "$out"
{
  echo "127.0.0.1 localhost"
  for ((i = 1; i <= n; i++)); do printf '127.0.0.1 host%d.test\n127.0.0.2 host%d.test\n' "$i" "$i"; done
} > "$out/hosts"
config() { python3 "$here/lib/farm_config.py" "$n" "$pki/expected-pins.tsv" "$pki/root.pem" --connect "" "$@"; }
config > "$out/first.yaml"
config --setting "addresses: all" --setting "key_types: [ecdsa, rsa]" > "$out/all.yaml"

run() {
  unshare --mount sh -c 'mount --bind "$1" /etc/hosts && exec "$2" "$3" "$4"' sh "$out/hosts" "$bench" "$out/$1.yaml" "$cycles" > "$out/$1.tsv"
}
run first
run all
python3 - "$out/first.tsv" "$out/all.tsv" "$n" <<'PY'
import statistics, sys
def figures(path):
    rows = [line.split("\t") for line in open(path).read().split("\n")[1:] if line]
    handshakes = [int(r[3]) + int(r[4]) + int(r[5]) for r in rows]
    per_cycle = [b - a for a, b in zip([0] + handshakes, handshakes)]
    cpu = [float(r[2]) * int(sys.argv[3]) / 1e6 for r in rows]
    return statistics.median(per_cycle), statistics.median(cpu), statistics.median(float(r[1]) for r in rows)
first, every = figures(sys.argv[1]), figures(sys.argv[2])
n = int(sys.argv[3])
print(f"| {n:,} hosts, median of the cycles | handshakes/cycle | CPU s/cycle | wall s/cycle |")
print("|---|---:|---:|---:|")
print(f"| addresses: first, one offer | {first[0]:,.0f} | {first[1]:.2f} | {first[2]:.2f} |")
print(f"| addresses: all (2 each), key_types: [ecdsa, rsa] | {every[0]:,.0f} | {every[1]:.2f} | {every[2]:.2f} |")
print(f"| ratio | {every[0] / first[0]:.2f} | {every[1] / first[1]:.2f} | {every[2] / first[2]:.2f} |")
PY
