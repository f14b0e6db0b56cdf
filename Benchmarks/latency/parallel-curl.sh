#!/usr/bin/env bash
# Benchmarks/latency/parallel-curl.sh N CONCURRENCY ADDR ROOT_PEM: the peer
# method of a blackbox prober, curl's own parallel transfers: one HTTPS
# request per farm host (hostI.test on ADDR:PORT_BASE+I, 1 ≤ I ≤ N),
# verified against ROOT_PEM, CONCURRENCY at once. curl caps --parallel-max
# at 300, so CONCURRENCY is shared out over as few curl processes as keep
# each at 250 or less, each with its own slice of the hosts.
# Prints one line per host: HTTP code, verify result, URL. Exit 1 if any
# curl failed.
set -euo pipefail
n=${1:?usage: parallel-curl.sh N CONCURRENCY ADDR ROOT_PEM} concurrency=${2:?} addr=${3:?} root=${4:?}
port_base=${PORT_BASE:-20000}
processes=$(((concurrency + 249) / 250))
per_process=$((concurrency / processes))
slice=$(((n + processes - 1) / processes))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pids=()
for ((p = 0; p < processes; p++)); do
  first=$((p * slice + 1)) last=$(((p + 1) * slice))
  ((last > n)) && last=$n
  ((first > last)) && continue
  {
    for ((i = first; i <= last; i++)); do
      printf 'url = "https://host%d.test:%d/"\noutput = "/dev/null"\n' "$i" "$((port_base + i))"
    done
  } > "$work/urls$p"
  # --connect-to ::ADDR: sends every host name to ADDR on its own port, so
  # SNI and the certificate check use the name, as for a real fleet.
  curl --parallel --parallel-immediate --parallel-max "$per_process" --silent --show-error --no-progress-meter \
    --cacert "$root" --connect-to "::$addr:" --max-time 10 \
    --write-out '%{http_code} %{ssl_verify_result} %{url}\n' --config "$work/urls$p" > "$work/out$p" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
cat "$work"/out*
exit "$failed"
