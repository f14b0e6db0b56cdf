#!/usr/bin/env bash
# Benchmarks/reference/shell-method.sh N PARALLEL OUT: the job done the way
# a runbook does it, with the openssl command line: for each hostI.test,
# `s_client -showcerts`, then per certificate as sent (leaf, intermediate;
# the root is not sent) its SPKI pin (x509 | pkey | dgst | base64) and
# notAfter. PARALLEL hosts at once (xargs -P). Output in expected-pins.tsv's
# format, in host order.
set -euo pipefail
n=${1:?usage: shell-method.sh N PARALLEL OUT} parallel=${2:?} out=${3:?}
export PORT_BASE=${PORT_BASE:-20000}
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
export parts

one_host() {
  local i=$1 host="host$1.test" level=0 name pem
  pem=$(timeout 10 openssl s_client -connect "127.0.0.1:$((PORT_BASE + i))" -servername "$host" -showcerts </dev/null 2>/dev/null |
    sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p')
  [[ -n "$pem" ]] || { echo "$host: no certificate" >&2; return 1; }
  local dir="$parts/$i"
  mkdir -p "$dir"
  # One file per certificate, in the order sent.
  awk -v dir="$dir" '/-----BEGIN CERTIFICATE-----/ { n++ } { print > (dir "/" n ".pem") }' <<<"$pem"
  for file in $(ls "$dir" | sort -n); do
    name=$([[ $level == 0 ]] && echo leaf || echo int)
    pin=$(openssl x509 -in "$dir/$file" -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)
    end=$(openssl x509 -in "$dir/$file" -noout -enddate | cut -d= -f2)
    printf '%s\t%s\t%s\t%s\n' "$host" "$name" "$pin" "$end"
    level=$((level + 1))
  done > "$parts/$i.tsv"
}
export -f one_host
seq 1 "$n" | xargs -P "$parallel" -I{} bash -c 'one_host {}'
for ((i = 1; i <= n; i++)); do cat "$parts/$i.tsv"; done > "$out"
