#!/usr/bin/env bash
# Benchmarks/farm/make-pki.sh N: the farm's PKI in $BENCH_WORK/pki, made once
# and reused while it has at least N leaves.
#
# Root: RSA-4096, 20 years. Intermediate: ECDSA P-384, 5 years. hostI.test
# (1 ≤ I ≤ N): its own ECDSA P-256 key and a 90-day leaf with SAN
# DNS:hostI.test, served with the intermediate (chainI.pem, keyI.pem).
# expected-pins.tsv: host, level (leaf/int/root), sha256 SPKI pin, notAfter.
set -euo pipefail
n=${1:?usage: make-pki.sh N}
pki="${BENCH_WORK:-/tmp/pinwatch-bench}/pki"
lib="$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)"
if [[ -f "$pki/count" ]] && (( $(cat "$pki/count") >= n )); then
  exit 0
fi
rm -rf "$pki"
mkdir -p "$pki/leaves"
cd "$pki"
echo "[pki] root, intermediate and $n leaves in $pki" >&2

openssl req -x509 -newkey rsa:4096 -nodes -keyout root.key -out root.pem -days 7300 -sha256 \
  -subj "/O=pinwatch bench/CN=pinwatch bench root" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout int.key \
  -subj "/O=pinwatch bench/CN=pinwatch bench intermediate" 2>/dev/null |
  openssl x509 -req -CA root.pem -CAkey root.key -CAcreateserial -days 1825 -sha384 -out int.pem \
    -extfile <(printf 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n') 2>/dev/null

# Leaves in parallel, one key each: two openssl processes per host.
make_leaf() {
  local i=$1 dir=leaves
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/key$i.pem" \
    -subj "/CN=host$i.test" 2>/dev/null |
    openssl x509 -req -CA int.pem -CAkey int.key -set_serial "$((100000 + i))" -days 90 -sha256 -out "$dir/leaf$i.pem" \
      -extfile <(printf 'subjectAltName=DNS:host%s.test\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$i") 2>/dev/null
  cat "$dir/leaf$i.pem" int.pem > "$dir/chain$i.pem"
}
export -f make_leaf
seq 1 "$n" | xargs -P "$(nproc)" -I{} bash -c 'make_leaf {}'

specs=()
for ((i = 1; i <= n; i++)); do
  specs+=("leaves/leaf$i.pem:host$i.test:leaf" "int.pem:host$i.test:int" "root.pem:host$i.test:root")
done
python3 "$lib/cert_facts.py" expected-pins.tsv "${specs[@]}"
echo "$n" > count
echo "[pki] done: $(wc -l < expected-pins.tsv) expected pins" >&2
