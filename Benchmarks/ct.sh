#!/usr/bin/env bash
# Benchmarks/ct.sh [ENTRIES]: entries of the local log verified and
# matched per second by pinwatch's follower (RFC 6962, and data tiles
# gzipped and plain), against Debian's certspotter
# reading the same log in the same run (release build; default 20,000
# entries). For the README's figure: Benchmarks/ct.sh 20000.
# Benchmarks/ct.sh probe [PROBES]: CPU per probe that checks a leaf's
# embedded SCTs against one that does not, alternating on one engine.
# Benchmarks/ct.sh ocsp [PROBES]: the same for a stapled OCSP response.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
swift build -c release --product pinwatch-ct-bench >&2
"$(swift build -c release --show-bin-path)/pinwatch-ct-bench" "${@:-20000}"
