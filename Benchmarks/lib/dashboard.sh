# Dashboard figures (README.md, "Performance"), sourced by run.sh (needs: PINWATCH, FRAME_BENCH, RESULTS, IDLE_SECS).
#
# Each figure is one function that appends one row to $RESULTS/dashboard.tsv,
# so each can be swapped for a better probe (e.g. a timing hook in pinwatch)
# without touching the rest. The dashboard runs in a tmux server of our own
# (socket $DASHBOARD_SOCKET), which dashboard_cleanup ends by that socket only.

DASHBOARD_HOSTS=200
DASHBOARD_SOCKET="pinwatch-bench-$$"
DASHBOARD_PID=""
CLOCK_TICKS="$(getconf CLK_TCK)"

dashboard_row() { # METRIC VALUE UNIT TARGET NOTE
  printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$RESULTS/dashboard.tsv"
}

now_ns() { date +%s%N; }

pane_text() { tmux -L "$DASHBOARD_SOCKET" capture-pane -p -t bench 2>/dev/null; }

pane_has_content() { pane_text | grep -q '[^[:space:]]'; }

# A crash report or an error message also fills the pane, so the first frame
# counts only once the pane lists the first farm host while pinwatch still runs.
pane_shows_dashboard() {
  local pid
  pid="$(tmux -L "$DASHBOARD_SOCKET" display-message -p -t bench '#{pane_pid}' 2>/dev/null)" || return 1
  kill -0 "$pid" 2>/dev/null && pane_text | grep -q 'host1\.test' && DASHBOARD_PID="$pid"
}

# cpu_ticks PID: user + system clock ticks of one process (fields 14 and 15 of
# /proc/PID/stat, counted after the command name, which may contain spaces).
cpu_ticks() {
  local stat; stat="$(cat "/proc/$1/stat")" || return 1
  set -- ${stat##*) }
  echo $(( ${12} + ${13} ))
}

# The time from exec to the first frame tmux shows. The pane's shell stamps
# the clock right before it execs pinwatch; the pane is blank until pinwatch
# paints, and it is polled every few ms (the resolution of this figure).
# Leaves the dashboard running for dashboard_idle_cpu.
dashboard_first_frame() {
  local stamp="$RESULTS/dashboard-start.ns" idle_config="$RESULTS/pinwatch-dashboard.yaml"
  # Idle means no poll inside the measured window: the poll's own cost is the snapshot figure.
  python3 "$LIB/farm_config.py" "$DASHBOARD_HOSTS" "$EXPECTED" "$ROOT_PEM" --interval 1h > "$idle_config"
  rm -f "$stamp"
  local launch
  printf -v launch 'date +%%s%%N > %q; exec %q watch --no-bell --state off --config %q' "$stamp" "$PINWATCH" "$idle_config"
  LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -L "$DASHBOARD_SOCKET" -f /dev/null \
    new-session -d -s bench -x 160 -y 50 "$launch"
  local seen="" k
  for ((k = 0; k < 2000; k++)); do   # bounded: at most about 10 s
    if pane_has_content; then seen="$(now_ns)"; pane_text > "$RESULTS/dashboard-first-capture.txt"; break; fi
    sleep 0.005
  done
  for ((k = 0; k < 100; k++)); do   # bounded: at most about 10 s more
    pane_shows_dashboard && break
    sleep 0.1
  done
  pane_text > "$RESULTS/dashboard-frame.txt" || true
  local metric="first frame, watch, $DASHBOARD_HOSTS hosts"
  if [[ -z "$seen" || ! -s "$stamp" ]]; then
    dashboard_row "$metric" "FAIL" "" "≤ 150 ms" "no frame within 10 s"
    return 1
  fi
  if [[ -z "$DASHBOARD_PID" ]]; then
    dashboard_row "$metric" "FAIL" "" "≤ 150 ms" "no dashboard; its first frame was: $(grep -m1 '[^[:space:]]' "$RESULTS/dashboard-first-capture.txt" | cut -c1-80)"
    return 1
  fi
  local ms=$(( (seen - $(cat "$stamp")) / 1000000 ))
  dashboard_row "$metric" "$ms" "ms" "≤ 150 ms" "exec → first tmux capture with content (polled every ~5 ms)"
}

# CPU of the running dashboard over IDLE_SECS, once its first poll has settled.
dashboard_idle_cpu() {
  local pid="$DASHBOARD_PID"
  if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null; then
    dashboard_row "idle CPU, watch, $DASHBOARD_HOSTS hosts, ${IDLE_SECS} s" "FAIL" "" "≤ 1 % of a core" "dashboard not running"
    return 1
  fi
  # The window starts once the header counts every farm host ok: the first poll is over.
  local k
  for ((k = 0; k < 300; k++)); do   # bounded: at most about 30 s
    pane_text | grep -q "ok $DASHBOARD_HOSTS " && break
    sleep 0.1
  done
  if ! pane_text | grep -q "ok $DASHBOARD_HOSTS "; then
    dashboard_row "idle CPU, watch, $DASHBOARD_HOSTS hosts, ${IDLE_SECS} s" "FAIL" "" "≤ 1 %" "the first poll did not show $DASHBOARD_HOSTS hosts ok within 30 s"
    return 1
  fi
  sleep 1
  local ticks0 ticks1 t0 t1
  ticks0="$(cpu_ticks "$pid")"; t0="$(now_ns)"
  sleep "$IDLE_SECS"
  ticks1="$(cpu_ticks "$pid")" || ticks1=""; t1="$(now_ns)"
  if [[ -z "$ticks1" ]] || ! pane_shows_dashboard; then
    dashboard_row "idle CPU, watch, $DASHBOARD_HOSTS hosts, ${IDLE_SECS} s" "FAIL" "" "≤ 1 %" "the dashboard died during the window"
    return 1
  fi
  local percent
  percent="$(python3 -c "print(f'{($ticks1 - $ticks0) / $CLOCK_TICKS / (($t1 - $t0) / 1e9) * 100:.2f}')")"
  local hwm; hwm="$(awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")"
  dashboard_row "idle CPU, watch, $DASHBOARD_HOSTS hosts, ${IDLE_SECS} s" "$percent" "% of a core" "≤ 1 %" \
    "interval 1h, after the first poll; $((ticks1 - ticks0)) ticks of 1/$CLOCK_TICKS s; peak RSS ${hwm} MB"
}

# Frame build + paint time for ROWS rows: the FrameBench target
# (pinwatch-frame-bench) builds and paints a synthetic dashboard of ROWS hosts
# with the real ncurses painter inside a tmux pane of our own and writes its
# median to a file. GNU time in front of it records the peak RSS of a
# dashboard state that size. Bounded to 120 s.
dashboard_frame_time() {
  local rows="$1" target="$2" rss_target="$3"
  local out="$RESULTS/frame-$rows.txt" rss="$RESULTS/frame-$rows.rss" launch k
  rm -f "$out" "$rss"
  if [[ ! -x "$FRAME_BENCH" ]]; then
    dashboard_row "frame build + paint, $rows rows" "not measured" "" "$target" "no $FRAME_BENCH"
    return 1
  fi
  printf -v launch 'exec /usr/bin/time -f %%M -o %q %q %d --paint --iterations 50 --out %q' "$rss" "$FRAME_BENCH" "$rows" "$out"
  LANG=C.UTF-8 LC_ALL=C.UTF-8 tmux -L "$DASHBOARD_SOCKET" -f /dev/null \
    new-session -d -s "frame$rows" -x 160 -y 50 "$launch"
  for ((k = 0; k < 1200; k++)); do   # GNU time writes last, once the bench has exited
    [[ -s "$rss" ]] && break
    sleep 0.1
  done
  tmux -L "$DASHBOARD_SOCKET" kill-session -t "frame$rows" 2>/dev/null || true
  local median max
  median="$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' "$out" 2>/dev/null)"
  max="$(sed -n 's/.*max_ms=\([0-9.]*\).*/\1/p' "$out" 2>/dev/null)"
  if [[ -z "$median" ]]; then
    dashboard_row "frame build + paint, $rows rows" "FAIL" "" "$target" "pinwatch-frame-bench wrote no figure"
    return 1
  fi
  dashboard_row "frame build + paint, $rows rows" "$median" "ms" "$target" "median of 50 frames (max $max ms), synthetic hosts, 160×50 tmux pane"
  dashboard_row "peak RSS, dashboard of $rows rows" "$(awk '{printf "%.1f", $1 / 1024}' "$rss")" "MB" "$rss_target" "pinwatch-frame-bench: state + frame + curses, no probes"
}

dashboard_stop() {
  [[ -n "$DASHBOARD_PID" ]] || return 0
  tmux -L "$DASHBOARD_SOCKET" send-keys -t bench q 2>/dev/null || true
  local k
  for ((k = 0; k < 50; k++)); do kill -0 "$DASHBOARD_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$DASHBOARD_PID" 2>/dev/null && kill "$DASHBOARD_PID" 2>/dev/null
  DASHBOARD_PID=""
}

dashboard_cleanup() {
  dashboard_stop || true
  tmux -L "$DASHBOARD_SOCKET" kill-server 2>/dev/null || true
  # tmux leaves its socket file behind when its server exits.
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$DASHBOARD_SOCKET"
}

dashboard_figures() {
  printf 'metric\tvalue\tunit\ttarget\tnote\n' > "$RESULTS/dashboard.tsv"
  if dashboard_first_frame; then
    dashboard_idle_cpu || true
  else
    dashboard_row "idle CPU, watch, $DASHBOARD_HOSTS hosts, ${IDLE_SECS} s" "not measured" "" "≤ 1 %" "no dashboard to measure"
  fi
  dashboard_stop
  dashboard_frame_time 1000 "≤ 5 ms" "≤ 40 MB" || true
  dashboard_frame_time 10000 "≤ 20 ms" "≤ 150 MB" || true
}
