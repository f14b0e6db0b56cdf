# Sourced by the benchmark scripts: bench_pki DIR LEAF_DAYS writes a
# P-256 root, an intermediate and a wildcard leaf for *.bench.test into
# DIR (root.pem, inter.pem, leaf.pem and their keys; chain.pem is the leaf
# then the intermediate): three levels, as most hosts serve. With a third
# argument, a base URL, the intermediate and the leaf name their issuer's
# CRL under it (crlDistributionPoints, as public CAs' chains do), and
# DIR/root.crl and DIR/inter.crl (DER, nothing revoked, 30 days) are written.
bench_pki() {
  local dir=$1 leaf_days=$2 crl_base=${3:-}
  _bench_ec() {
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/$1.key" -subj "/CN=Bench $1" "${@:2}"
  }
  _bench_ec root -x509 -days 30 -out "$dir/root.pem" -addext "basicConstraints=critical,CA:TRUE" 2> /dev/null
  _bench_ec inter -out "$dir/inter.csr" 2> /dev/null
  _bench_ec leaf -out "$dir/leaf.csr" 2> /dev/null
  printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' > "$dir/inter.ext"
  printf 'subjectAltName=DNS:*.bench.test\nextendedKeyUsage=serverAuth\n' > "$dir/leaf.ext"
  if [[ -n "$crl_base" ]]; then
    echo "crlDistributionPoints=URI:$crl_base/root.crl" >> "$dir/inter.ext"
    echo "crlDistributionPoints=URI:$crl_base/inter.crl" >> "$dir/leaf.ext"
  fi
  openssl x509 -req -in "$dir/inter.csr" -CA "$dir/root.pem" -CAkey "$dir/root.key" -CAcreateserial -days 30 \
    -extfile "$dir/inter.ext" -out "$dir/inter.pem" 2> /dev/null
  openssl x509 -req -in "$dir/leaf.csr" -CA "$dir/inter.pem" -CAkey "$dir/inter.key" -CAcreateserial -days "$leaf_days" \
    -extfile "$dir/leaf.ext" -out "$dir/leaf.pem" 2> /dev/null
  cat "$dir/leaf.pem" "$dir/inter.pem" > "$dir/chain.pem"
  if [[ -n "$crl_base" ]]; then
    : > "$dir/index.txt"
    printf '[ca]\ndefault_ca = bench\n[bench]\ndatabase = %s/index.txt\ndefault_md = sha256\ndefault_crl_days = 30\n' \
      "$dir" > "$dir/ca.cnf"
    local issuer
    for issuer in root inter; do
      openssl ca -gencrl -config "$dir/ca.cnf" -keyfile "$dir/$issuer.key" -cert "$dir/$issuer.pem" \
        -out "$dir/$issuer.crl.pem" 2> /dev/null
      openssl crl -in "$dir/$issuer.crl.pem" -outform DER -out "$dir/$issuer.crl"
    done
  fi
}
