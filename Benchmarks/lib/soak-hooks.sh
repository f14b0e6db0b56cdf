# Sourced by scripts/soak and Benchmarks/heaptrack-serve.sh: soak_hooks DIR
# MARKER writes the soak's hook storm into DIR. DIR/hook is one hook: it
# reads its event, logs a line to DIR/hooks.log, and one run in four leaves
# a child named MARKER in its process group and sleeps past its 2 s
# timeout, so pinwatch has to kill the group. DIR/watch.yaml and
# DIR/serve.yaml are the lab's DIR/pinwatch.yaml with three such hooks
# each, run on every transition.
soak_hooks() {
  local dir=$1 marker=$2 process number
  cat > "$dir/hook" << HOOK
#!/usr/bin/env bash
head -c 65536 >/dev/null
echo "\$(date +%s) \$1 \$2" >>'$dir/hooks.log'
if (( RANDOM % 4 == 0 )); then
  bash -c 'exec -a $marker sleep 600' &
  sleep 10
fi
HOOK
  chmod +x "$dir/hook"
  for process in watch serve; do
    {
      echo "hooks:"
      for number in 1 2 3; do
        printf '  - command: [%s, %s, %s]\n    timeout: 2s\n' "$dir/hook" "$process" "$number"
      done
      cat "$dir/pinwatch.yaml"
    } > "$dir/$process.yaml"
  done
}

# soak_marked_children MARKER: the PIDs whose argv[0] is MARKER.
soak_marked_children() {
  local file argv0
  for file in /proc/[0-9]*/cmdline; do
    { IFS= read -r -d '' argv0 < "$file"; } 2> /dev/null || true
    [[ "$argv0" == "$1" ]] && { file=${file#/proc/}; echo "${file%/cmdline}"; }
  done
  return 0
}
