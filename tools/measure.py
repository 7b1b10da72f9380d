#!/usr/bin/env python3
"""Times a command: median and p90 wall time over RUNS runs, and peak RSS.

usage: tools/measure.py LABEL RUNS CMD...   (stdout of CMD is discarded;
exit codes 0 and 1 count as success: 1 is a failing check or fixture)
"""
import os
import statistics
import sys
import time


def main():
    label, runs, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    walls, rss = [], 0
    for _ in range(runs):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.execvp(cmd[0], cmd)
        _, status, usage = os.wait4(pid, 0)
        walls.append(time.perf_counter() - t)
        rss = max(rss, usage.ru_maxrss)  # KiB on Linux
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            print(f"{label} FAILED (exit {code})")
            sys.exit(1)
    walls.sort()
    p90 = walls[min(len(walls) - 1, int(round(0.9 * (len(walls) - 1))))]
    runs_text = " ".join(f"{w:.3f}" for w in walls)
    print(f"{label} median {statistics.median(walls):.3f}s p90 {p90:.3f}s (runs: {runs_text})  max RSS {rss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
