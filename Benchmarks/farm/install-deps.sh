#!/usr/bin/env bash
# Benchmarks/farm/install-deps.sh: the Debian packages the benchmark needs
# (nginx for the farm, a C compiler and libssl-dev for the reference
# scanner, tmux for the dashboard figures). Installs what is missing when
# run as root; otherwise says what to install.
set -euo pipefail
need=()
for package in nginx-light openssl gcc libc6-dev libssl-dev python3 tmux procps; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
((${#need[@]} == 0)) && exit 0
if [[ $EUID -ne 0 ]]; then
  echo "bench: missing packages: ${need[*]} (apt-get install -y ${need[*]})" >&2
  exit 2
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >&2
