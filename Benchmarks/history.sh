#!/usr/bin/env bash
# Benchmarks/history.sh [HOSTS] [DAYS]: figures for the history store
# from the release build:
#   - store work for a cycle of 1,000 unchanged hosts (one transaction),
#     beside the cost of the same cycle's verdicts, measured in the same run;
#   - HOSTS × DAYS daily leaf renewals with a new key each time (the worst
#     case; default 1,000 × 400): bytes on disk per renewal, and how long
#     `history HOST` takes on that file.
# For the README's figure: Benchmarks/history.sh 10000 400 (a few minutes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
swift build -c release --product pinwatch-history-bench >&2
"$(swift build -c release --show-bin-path)/pinwatch-history-bench" "${1:-1000}" "${2:-400}"
