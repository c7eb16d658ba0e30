#!/usr/bin/env python3
"""Timing helpers for scripts/bench (things a shell times badly).

    helper.py add MNT LIST                  write LIST to MNT/queue/new in one open
    helper.py fill MNT LIST N TIMEOUT       add LIST, then poll MNT/files until it
                                            holds N entries; prints the seconds
    helper.py latency MNT ID[,ID...] SECS   time reads of MNT/queue/<first id>/status
                                            while every task is `downloading`
"""

import os
import subprocess
import sys
import time


def add(mnt, listing):
    """Writes LIST to queue/new on one handle; returns the ids it added."""
    with open(listing, "rb") as source:
        data = source.read()
    fd = os.open(os.path.join(mnt, "queue", "new"), os.O_RDWR)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        answer = b""  # read from offset 0: the writes moved the file position
        while chunk := os.pread(fd, 1 << 20, len(answer)):
            answer += chunk
    finally:
        os.close(fd)
    return [int(word) for word in answer.split()]


def fill(mnt, listing, count, timeout):
    """Adds LIST; returns once files/ holds `count` entries. Waits on the
    last task's `wait` first (tasks start in id order), so polling files/
    (every 5 ms) only covers the tail and costs the daemon little."""
    files = os.path.join(mnt, "files")
    start = time.monotonic()
    ids = add(mnt, listing)
    deadline = start + timeout
    if ids:
        with open(os.path.join(mnt, "queue", str(max(ids)), "wait"), "rb") as handle:
            handle.read()
    while True:
        if len(os.listdir(files)) >= count:
            print(f"{time.monotonic() - start:.3f}")
            return 0
        if time.monotonic() > deadline:
            print(f"timeout: {len(os.listdir(files))} of {count} in files/", file=sys.stderr)
            return 1
        time.sleep(0.005)


def status(mnt, task):
    with open(os.path.join(mnt, "queue", str(task), "status"), encoding="utf-8") as handle:
        return dict(line.split(": ", 1) for line in handle.read().splitlines() if ": " in line)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def latency(mnt, ids, seconds):
    """Phase 1 (`seconds`): open+read+close of the first task's status every
    2 ms, timed in-process. Phase 2 (at most 1 s): `cat` of it as a process
    every 20 ms (fork/exec included), kept apart so the processes do not load
    the machine during phase 1. Both only while every task is downloading."""
    ids = ids.split(",")
    path = os.path.join(mnt, "queue", ids[0], "status")
    deadline = time.monotonic() + 60
    while not all(status(mnt, t).get("state") == "downloading" for t in ids):
        if time.monotonic() > deadline:
            print("the downloads did not all start", file=sys.stderr)
            return 1
        time.sleep(0.01)
    ended = False

    def sample(duration, pause, measure):
        nonlocal ended
        values = []
        end = time.monotonic() + duration
        next_check = 0.0
        while not ended and time.monotonic() < end:
            values.append(measure())
            now = time.monotonic()
            if now >= next_check:
                ended = not all(status(mnt, t).get("state") == "downloading" for t in ids)
                next_check = now + 0.2
            time.sleep(pause)
        return values

    def read_status():
        t0 = time.perf_counter()
        fd = os.open(path, os.O_RDONLY)
        while os.read(fd, 65536):
            pass
        os.close(fd)
        return time.perf_counter() - t0

    def cat_status():
        t0 = time.perf_counter()
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0

    start = time.monotonic()
    first = sum(int(status(mnt, t).get("downloaded", "0")) for t in ids)
    reads = sample(seconds, 0.002, read_status)
    elapsed = time.monotonic() - start
    last = sum(int(status(mnt, t).get("downloaded", "0")) for t in ids)
    cats = sample(1.0, 0.02, cat_status)
    ms = lambda v: f"{v * 1000:.2f}" if v is not None else "-"
    pick = lambda v, f: percentile(v, f) if v else None
    print(f"reads {len(reads)} p50 {ms(pick(reads, 0.5))} p99 {ms(pick(reads, 0.99))} "
          f"max {ms(max(reads) if reads else None)} | cat {len(cats)} p50 {ms(pick(cats, 0.5))} "
          f"p99 {ms(pick(cats, 0.99))} | {elapsed:.1f} s at {(last - first) / elapsed / 2**20:.0f} MiB/s"
          f"{' (a download ended before the end)' if ended else ''}")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "add":
        add(argv[2], argv[3])
        return 0
    if len(argv) == 6 and argv[1] == "fill":
        return fill(argv[2], argv[3], int(argv[4]), float(argv[5]))
    if len(argv) == 5 and argv[1] == "latency":
        return latency(argv[2], argv[3], float(argv[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
