#!/usr/bin/env python3
"""measure.py TIMEFILE STDOUT TIMEOUT_S -- COMMAND...: one timed run, as `/usr/bin/time -f` would record it.

Writes one line to TIMEFILE: `wall_s user_s sys_s maxrss_kb exit_code`, the
fields of `/usr/bin/time -f '%e %U %S %M %x'`. GNU time rounds to 10 ms, which
is 18 % of the C reference's whole run at N = 50, so wall and CPU come from
this script's own clock and wait4() rusage (microseconds; CPU covers the
command and every descendant it waited for). Peak RSS comes from GNU time run
as the command's parent: any process spawned from this interpreter inherits
its ~13 MB high-water mark at exec, GNU time's children start from 2 MB.
The run is bounded: after TIMEOUT_S the command's own process group (and
nothing else) is killed.
"""
import os
import signal
import sys
import time


def read_max_rss_kb(path):
    """GNU time's %M, or -1 when it wrote none (the run was killed)."""
    try:
        with open(path) as f:
            lines = [line.strip() for line in f if line.strip()]
        os.remove(path)
        return int(lines[-1])
    except (OSError, ValueError, IndexError):
        return -1


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit("usage: measure.py TIMEFILE STDOUT TIMEOUT_S -- COMMAND...")
    time_file, stdout_path, timeout_s, command = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[5:]
    rss_file = time_file + ".gnu-time"
    command = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + command
    stdout = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    started = time.perf_counter()
    # setsid gives the command a process group of its own, so a timeout kills it
    # without touching anything this script did not start.
    pid = os.posix_spawn(command[0], command, os.environ, setsid=True,
                         file_actions=[(os.POSIX_SPAWN_DUP2, stdout, 1)])
    os.close(stdout)

    def on_timeout(_signum, _frame):
        os.killpg(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, on_timeout)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    signal.setitimer(signal.ITIMER_REAL, 0)
    exit_code = os.waitstatus_to_exitcode(status)
    max_rss_kb = read_max_rss_kb(rss_file)
    with open(time_file, "w") as out:
        out.write(f"{wall:.6f} {usage.ru_utime:.6f} {usage.ru_stime:.6f} {max_rss_kb} {exit_code}\n")
    sys.exit(0 if exit_code == 0 else 1)


if __name__ == "__main__":
    main()
