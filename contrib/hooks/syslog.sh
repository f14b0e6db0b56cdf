#!/bin/sh
# A pinwatch hook: one syslog line per severity transition, through logger.
#
#   hooks:
#     - [/etc/pinwatch/hooks/syslog.sh]
#
# Needs jq; the priority follows the new severity.
set -eu
event=$(cat)
severity=$(printf '%s' "$event" | jq -r '.new.severity')
case "$severity" in
  critical) priority=user.crit ;;
  unknown|warning) priority=user.warning ;;
  *) priority=user.notice ;;
esac
printf '%s' "$event" | jq -r '"\(.host):\(.port)\(if .connect then " -> \(.connect)" else "" end) \(.old.severity // "new") -> \(.new.severity) (\(.new.status)): \(.reason)"' \
  | logger -t pinwatch -p "$priority"
