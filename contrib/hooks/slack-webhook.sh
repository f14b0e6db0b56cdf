#!/bin/sh
# A pinwatch hook: posts each severity transition to a Slack-compatible
# incoming webhook. The event arrives as one JSON object on stdin.
#
#   hooks:
#     - command: [/etc/pinwatch/hooks/slack-webhook.sh]
#       timeout: 10s
#
# Needs curl and jq; the webhook URL comes from the environment
# (PINWATCH_WEBHOOK_URL), never from the event.
set -eu
: "${PINWATCH_WEBHOOK_URL:?set PINWATCH_WEBHOOK_URL to the incoming webhook}"
jq -c '{text: ("pinwatch: \(.host):\(.port)\(if .connect then " → \(.connect)" else "" end) \(.old.severity // "new") → \(.new.severity) (\(.new.status)): \(.reason)")}' \
  | curl --silent --show-error --fail --max-time 8 \
      -H 'Content-Type: application/json' --data-binary @- "$PINWATCH_WEBHOOK_URL"
