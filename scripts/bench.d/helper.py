#!/usr/bin/env python3
"""Timing helpers for scripts/bench (things a shell times badly).

    helper.py add MNT LIST                  write LIST to MNT/queue/new in one open
    helper.py fill MNT LIST N TIMEOUT       add LIST, then poll MNT/files until it
                                            holds N entries; prints the seconds
    helper.py latency MNT ID[,ID...] SECS   time reads of MNT/queue/<first id>/status
                                            while every task is `downloading`
    helper.py syncmove [--meta] DIR DEST THREADS [-- COMMAND...]
                                            run COMMAND (the download into DIR), then
                                            fdatasync each file of DIR and rename it into
                                            DEST, THREADS at a time; prints the seconds of
                                            both, one wall; --meta also gives each file
                                            what R40-R42 ask (mtime, origin attributes,
                                            mode 0444)
    helper.py offsets SIZE K SEED           the K read offsets of `stream`, in the order read
    helper.py reads [--hold] FILE SRC K SEED [MNT ID]
                                            time K reads of 64 KiB (open, pread, close)
                                            of FILE at those offsets, checked against SRC;
                                            with MNT and ID, FILE is a URL to add to
                                            MNT/queue/new first, and the reads go to the
                                            task's data file once it has its full size;
                                            --hold keeps one more handle open meanwhile
    helper.py cat FILE SRC [MNT]            read FILE to the end in 128 KiB reads (as cat
                                            does), checked against SRC; with MNT, FILE is
                                            a URL added to MNT/queue/new first, the data
                                            file read once it has its full size, and the
                                            download timed too (until queue/1/wait answers)
    helper.py rpc-latency PORT[,PORT...] SECS
                                            p50/p99 of aria2.tellStatus of the first active
                                            download over HTTP POST, each port in turn every
                                            2 ms for SECS (aria2c's beside ours)
    helper.py rpc-call PORT METHOD JSON-PARAMS ROUNDS
                                            the seconds of the first call and the median of ROUNDS
    helper.py rpc-notify MNT PORT URL-LIST  add each URL through MNT/queue/new while a
                                            WebSocket listens on PORT and MNT/events is read;
                                            p50/p99/max of notification time minus the time
                                            of the `completed` line, per task
    helper.py complete-all-but STATE N      mark every task of STATE's catalog but the first
                                            N completed, each with an empty file (the forget
                                            fixture; nothing mounted)
"""

import os
import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor


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


def syncmove(source, dest, threads, command=None, meta=False):
    """What R51 asks of a downloader beyond curl's work, for the `many`
    part: `command` (curl fetching into `source`) run, then each file's data
    flushed (fdatasync) and the file renamed into `dest`, `threads` at a
    time (downloadfs's workers run in parallel too), timed as one wall. The
    clock starts here, after Python's own start, which a peer written in C
    would not pay. `meta`: each file also gets what downloadfs gives a
    finished file (R40-R42): the server's mtime, the origin URL and MIME
    type as user attributes, and mode 0444."""
    os.makedirs(dest, exist_ok=True)

    def one(name):
        path = os.path.join(source, name)
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fdatasync(fd)
        finally:
            os.close(fd)
        if meta:
            os.utime(path, (1_700_000_000, 1_700_000_000))
            os.setxattr(path, "user.xdg.origin.url", f"http://127.0.0.1/many/{name}".encode())
            os.setxattr(path, "user.mime_type", b"application/octet-stream")
        os.rename(path, os.path.join(dest, name))
        if meta:
            os.chmod(os.path.join(dest, name), 0o444)

    start = time.monotonic()
    if command:
        # curl -Z draws its parallel meter on stderr even with -s.
        subprocess.run(command, check=True, timeout=300, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, os.listdir(source)))
    print(f"{time.monotonic() - start:.3f}")
    return 0


def status(mnt, task):
    with open(os.path.join(mnt, "queue", str(task), "status"), encoding="utf-8") as handle:
        return dict(line.split(": ", 1) for line in handle.read().splitlines() if ": " in line)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def latency(mnt, ids, seconds, baseline=None):
    """Phase 1 (`seconds`): open+read+close of the first task's status every
    2 ms, timed in-process. Phase 2 (at most 1 s): `cat` of it as a process
    every 20 ms (fork/exec included), kept apart so the processes do not load
    the machine during phase 1. Phase 3 (at most 1 s, with `baseline`, a
    small file in a trivial FUSE filesystem): the status and that file in
    turn, the same way, so the machine's own cost of a FUSE read under the
    same load is beside ours; printed on a second line. All only while every
    task is downloading."""
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

    def read_whole(target):
        t0 = time.perf_counter()
        fd = os.open(target, os.O_RDONLY)
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
    reads = sample(seconds, 0.002, lambda: read_whole(path))
    elapsed = time.monotonic() - start
    last = sum(int(status(mnt, t).get("downloaded", "0")) for t in ids)
    cats = sample(1.0, 0.02, cat_status)
    ms = lambda v: f"{v * 1000:.2f}" if v is not None else "-"
    pick = lambda v, f: percentile(v, f) if v else None
    ended_note = lambda: " (a download ended before the end)" if ended else ""
    print(f"reads {len(reads)} p50 {ms(pick(reads, 0.5))} p99 {ms(pick(reads, 0.99))} "
          f"max {ms(max(reads) if reads else None)} | cat {len(cats)} p50 {ms(pick(cats, 0.5))} "
          f"p99 {ms(pick(cats, 0.99))} | {elapsed:.1f} s at {(last - first) / elapsed / 2**20:.0f} MiB/s"
          f"{ended_note()}")
    if baseline:
        def read_both():
            ours = read_whole(path)
            time.sleep(0.002)
            return ours, read_whole(baseline)

        pairs = sample(1.0, 0.002, read_both)
        ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
        print(f"beside {len(pairs)} status p50 {ms(pick(ours, 0.5))} p99 {ms(pick(ours, 0.99))} "
              f"| baseline p50 {ms(pick(theirs, 0.5))} p99 {ms(pick(theirs, 0.99))}{ended_note()}")
    return 0


READ = 64 * 1024


def add_url(mnt, url):
    """Writes one URL line to queue/new (one write, then close)."""
    with open(os.path.join(mnt, "queue", "new"), "wb", buffering=0) as handle:
        handle.write(url.encode() + b"\n")


def offsets(size, count, seed):
    """`count` offsets of 64 KiB reads, 4 KiB aligned, in the last 60 % of a
    file of `size` bytes (where a download that starts at byte 0 has not
    got to early on), from a fixed seed, spaced apart (up to 16 MiB), and
    given from the last to the first: a connection that a read makes the
    download open runs on towards the end, so it never reaches the offset
    of a later read."""
    low, high = (size * 2 // 5) // 4096, (size - READ) // 4096
    if high <= low:
        return [0] * count
    gap = max(1, min(16 << 20, (high - low) * 4096 // (2 * count)) // 4096)
    rng = random.Random(seed)
    chosen = []
    for _ in range(count * 1000):
        if len(chosen) == count:
            break
        page = rng.randint(low, high)
        if all(abs(page - other) >= gap for other in chosen):
            chosen.append(page)
    while len(chosen) < count:  # a tiny file: spacing given up
        chosen.append(rng.randint(low, high))
    return sorted((page * 4096 for page in chosen), reverse=True)


class Overdue(Exception):
    pass


def _overdue(signum, frame):
    raise Overdue()


def wait_full(mnt, task, deadline):
    """Waits until the task is `downloading` and its data file has its full
    size (R23). Returns (path, size, seconds waited, problem or None)."""
    start = time.monotonic()
    last = {}
    while time.monotonic() < deadline:
        try:
            last = status(mnt, task)
        except OSError:
            last = {}
        name, total, state = last.get("name", "-"), last.get("total", "-"), last.get("state")
        if name not in ("-", "") and total.isdigit():
            path = os.path.join(mnt, "queue", str(task), name)
            try:
                size = os.stat(path).st_size
            except OSError:
                size = -1
            if state == "downloading" and size == int(total):
                return path, size, time.monotonic() - start, None
            if state in ("completed", "failed"):
                return path, int(total), time.monotonic() - start, (
                    f"the task was {state} before its data file had its full size (st_size {size} of {total})")
        time.sleep(0.002)
    name = last.get("name", "-")
    path = os.path.join(mnt, "queue", str(task), name)
    try:
        size = os.stat(path).st_size
    except OSError:
        size = -1
    return path, None, time.monotonic() - start, (
        f"no full-size data file within the deadline (state {last.get('state', '?')}, "
        f"st_size {size} of {last.get('total', '?')})")


def reads(target, source, count, seed, mnt=None, task=None, hold=False):
    """Times `count` reads of 64 KiB: open, pread, close, in-process, each at
    most 10 s (SIGALRM; a FUSE read that ignores the interrupt is left to the
    caller's `timeout`). Each is checked against the same bytes of SOURCE; a
    short read or other bytes is a wrong read, left out of the percentiles.
    Prints one summary line (`ahead no` when the task was not downloading
    from before the first read until after the last), one line per wrong
    read or note, then `ms T` for each good read. `hold` keeps one more handle on TARGET open during
    the reads: httpdirfs 1.2.5 with --cache crashes when the last handle of
    a file is closed while its background fetch runs ("Cache_free: could not
    destroy w_lock", its issue 174); with another handle open a read's close
    is not the last."""
    size = os.path.getsize(source)
    notes = []
    context = ""
    ahead = "-"
    if mnt is not None:
        add_url(mnt, target)
        target, full, waited, problem = wait_full(mnt, task, time.monotonic() + 60)
        if problem:
            notes.append(problem)
        before = status(mnt, task)
        context = (f" | full size after {waited:.3f} s | before the reads: downloaded "
                   f"{before.get('downloaded')} connections {before.get('connections')}")
    signal.signal(signal.SIGALRM, _overdue)
    held = os.open(target, os.O_RDONLY) if hold else None
    good, bad = [], []
    with open(source, "rb") as src:
        for offset in offsets(size, count, seed):
            want = os.pread(src.fileno(), READ, offset)
            got = b""
            calls = 0
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, 10)
            try:
                fd = os.open(target, os.O_RDONLY)
                try:
                    while len(got) < READ:
                        calls += 1
                        chunk = os.pread(fd, READ - len(got), offset + len(got))
                        if not chunk:
                            break
                        got += chunk
                finally:
                    os.close(fd)
                error = None
            except Overdue:
                error = "no answer within 10 s"
            except OSError as failure:
                error = f"{failure.strerror or failure}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            elapsed = time.perf_counter() - start
            if error is None and got != want:
                if len(got) < len(want):
                    error = f"short read: {len(got)} of {len(want)} bytes"
                else:
                    first = next(i for i in range(len(want)) if got[i] != want[i])
                    error = f"wrong bytes from +{first}"
            if error is None:
                good.append(elapsed)
            else:
                bad.append(f"wrong read at {offset}: {error} ({elapsed * 1000:.1f} ms)")
            if calls > 1 and error is None:
                notes.append(f"read at {offset} took {calls} preads")
    if held is not None:
        os.close(held)
    if mnt is not None:
        after = status(mnt, task)
        context += (f" | after: downloaded {after.get('downloaded')} connections "
                    f"{after.get('connections')} state {after.get('state')}")
        # Ahead of the download: it was under way, bytes still missing, from
        # before the first read until after the last.
        ahead = "yes"
        if before.get("state") != "downloading" or before.get("downloaded") == before.get("total"):
            ahead = "no"
            notes.append(f"not ahead: before the reads the task was {before.get('state')} with "
                         f"{before.get('downloaded')} of {before.get('total')} bytes")
        elif after.get("state") != "downloading":
            ahead = "no"
            notes.append(f"not ahead: the task was {after.get('state')} by the end of the reads")
    ms = lambda v: f"{v * 1000:.2f}"
    summary = (f"p50 {ms(percentile(good, 0.5))} p99 {ms(percentile(good, 0.99))} "
               f"max {ms(max(good))}") if good else "p50 - p99 - max -"
    print(f"reads {count} good {len(good)} {summary} ahead {ahead}{context}")
    for line in bad + notes:
        print(line)
    for value in good:
        print(f"ms {value * 1000:.3f}")
    return 0


def cat(target, source, mnt=None):
    """Reads TARGET to the end, 128 KiB at a time, comparing with SOURCE.
    With MNT: TARGET is a URL; the clock starts at the write to queue/new,
    the data file is read once it has its full size, and a thread times the
    download until queue/1/wait answers. Prints `cat S download S|- bytes N
    ok|wrong ...` (with MNT, then when the reading began)."""
    size = os.path.getsize(source)
    done = {}
    notes = []
    start = time.monotonic()
    if mnt is not None:
        start = time.monotonic()
        add_url(mnt, target)

        def waiter():
            with open(os.path.join(mnt, "queue", "1", "wait"), "rb") as handle:
                done["result"] = handle.read().decode(errors="replace").strip()
            done["at"] = time.monotonic()

        thread = threading.Thread(target=waiter, daemon=True)
        thread.start()
        limit = start + max(120, size / (8 << 20))
        target, full, waited, problem = wait_full(mnt, 1, limit)
        if problem:
            notes.append(problem)
            if not os.path.exists(target):
                target = os.path.join(mnt, "files", os.path.basename(target))
    verdict = "ok"
    total = 0
    try:
        with open(source, "rb") as src, open(target, "rb", buffering=0) as data:
            while True:
                chunk = data.read(128 * 1024)
                if not chunk:
                    break
                want = src.read(len(chunk))
                if chunk != want and verdict == "ok":
                    first = next((i for i in range(min(len(chunk), len(want))) if chunk[i] != want[i]), len(want))
                    verdict = f"wrong bytes at {total + first}"
                total += len(chunk)
    except OSError as failure:
        verdict = f"error after {total} bytes: {failure.strerror or failure}"
    ended = time.monotonic()
    if verdict == "ok" and total != size:
        verdict = f"wrong length: {total} of {size} bytes"
    download = "-"
    if mnt is not None:
        thread.join(max(1, start + max(60, size / (4 << 20)) - time.monotonic()))
        if "at" in done:
            download = f"{done['at'] - start:.3f}"
            if done["result"] != "completed":
                notes.append(f"the download ended: {done['result']}")
        else:
            notes.append("the download had not ended by the deadline")
    began = f" | read from {waited:.3f} s on" if mnt is not None else ""
    print(f"cat {ended - start:.3f} download {download} bytes {total} {verdict}{began}")
    for line in notes:
        print(line)
    return 0


def table(mnt):
    """Prints the seconds until the first line of MNT/status arrives and until all of it has."""
    began = time.monotonic()
    with open(os.path.join(mnt, "status"), "rb", buffering=0) as handle:
        handle.read(4096)
        first = time.monotonic() - began
        while handle.read(1 << 20):
            pass
    print(f"{first:.4f} {time.monotonic() - began:.3f}")


def rpc_post(port, method, params, timeout=10):
    """One JSON-RPC call over a fresh HTTP/1.1 connection (as a front end's fetch)."""
    import http.client
    import json
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = json.dumps({"jsonrpc": "2.0", "id": "b", "method": method, "params": params})
    connection.request("POST", "/jsonrpc", body, {"Content-Type": "application/json"})
    reply = json.loads(connection.getresponse().read())
    connection.close()
    if "error" in reply:
        raise RuntimeError(f"{method} on {port}: {reply['error']}")
    return reply["result"]


def rpc_latency(ports, seconds):
    """tellStatus of each server's first active download, the servers in turn
    every 2 ms for `seconds`, timed in-process; one line per port."""
    ports = [int(p) for p in ports.split(",")]
    gids = {}
    deadline = time.monotonic() + 60
    while len(gids) < len(ports):
        for port in ports:
            active = rpc_post(port, "aria2.tellActive", [["gid", "status"]])
            if active:
                gids[port] = active[0]["gid"]
        if time.monotonic() > deadline:
            print("no active download on every server", file=sys.stderr)
            return 1
        time.sleep(0.01)
    samples = {port: [] for port in ports}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for port in ports:
            t0 = time.perf_counter()
            rpc_post(port, "aria2.tellStatus", [gids[port]])
            samples[port].append(time.perf_counter() - t0)
        time.sleep(0.002)
    for port in ports:
        values = samples[port]
        print(f"{port} calls {len(values)} p50 {percentile(values, 0.5) * 1000:.2f} "
              f"p99 {percentile(values, 0.99) * 1000:.2f}")
    return 0


def rpc_call(port, method, params, rounds):
    import json
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        rpc_post(int(port), method, json.loads(params), timeout=60)
        times.append(time.perf_counter() - t0)
    print(f"{times[0]:.4f} {percentile(times, 0.5):.4f}")
    return 0


class WebSocketReader:
    """The least of a WebSocket client: the handshake, then text frames read
    (the server's are unmasked); enough to time notifications."""

    def __init__(self, port):
        import base64
        import socket
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"WebSocket refused: {head[:80]!r}")

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("the WebSocket closed")
        return data

    def _take(self, n):
        while len(self.buffer) < n:
            self.buffer += self._recv()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def text(self):
        """The next text message (control frames skipped)."""
        while True:
            first, second = self._take(2)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(self._take(2), "big")
            elif length == 127:
                length = int.from_bytes(self._take(8), "big")
            payload = self._take(length)
            if first & 0x0F == 1:
                return payload.decode()


def rpc_notify(mnt, port, listing):
    """For each URL of LISTING (added one at a time), how long after the
    `completed` line of MNT/events the WebSocket's onDownloadComplete came."""
    import json
    events_at, notified_at = {}, {}
    socket_reader = WebSocketReader(int(port))
    done = threading.Event()

    def follow_events():
        with open(os.path.join(mnt, "events"), "rb", buffering=0) as events:
            pending = b""
            while not done.is_set():
                pending += events.read(65536)
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    words = line.decode().split(" ", 3)
                    if len(words) >= 3 and words[2] == "completed":
                        events_at[int(words[1])] = time.perf_counter()

    def follow_socket():
        while not done.is_set():
            message = json.loads(socket_reader.text())
            if message.get("method") == "aria2.onDownloadComplete":
                notified_at[int(message["params"][0]["gid"], 16)] = time.perf_counter()

    for target in (follow_events, follow_socket):
        threading.Thread(target=target, daemon=True).start()
    time.sleep(0.2)  # both readers open before the first add
    with open(listing, encoding="utf-8") as handle:
        urls = [line.strip() for line in handle if line.strip()]
    ids = []
    for url in urls:
        fd = os.open(os.path.join(mnt, "queue", "new"), os.O_RDWR)
        os.write(fd, url.encode() + b"\n")
        ids.append(int(os.pread(fd, 64, 0).split()[0]))
        os.close(fd)
        time.sleep(0.05)  # spread the completions, as a user's adds are
    deadline = time.monotonic() + 120
    while not all(i in notified_at and i in events_at for i in ids):
        if time.monotonic() > deadline:
            print(f"only {len(notified_at)} of {len(ids)} notified", file=sys.stderr)
            return 1
        time.sleep(0.01)
    done.set()
    gaps = [notified_at[i] - events_at[i] for i in ids]
    print(f"tasks {len(gaps)} p50 {percentile(gaps, 0.5) * 1000:.1f} p99 {percentile(gaps, 0.99) * 1000:.1f} "
          f"max {max(gaps) * 1000:.1f}")
    return 0


def complete_all_but(state, keep):
    """Marks every task of STATE's catalog but the first KEEP completed, with
    an empty file in STATE/files under its name: the fixture for forgetting a
    million finished downloads (downloading them would take hours). Run with
    nothing mounted. Prints how many."""
    import sqlite3
    with sqlite3.connect(os.path.join(state, "catalog.sqlite"), timeout=30) as db:
        db.execute("UPDATE task SET state = 'completed', downloaded = 0, total = 0, ranges = '', "
                   "completedAt = '2026-11-26 12:00:00.000' WHERE id > ?", (keep,))
        names = [name for (name,) in db.execute("SELECT name FROM task WHERE id > ?", (keep,))]
    files = os.path.join(state, "files")
    os.makedirs(files, exist_ok=True)
    for name in names:
        os.close(os.open(os.path.join(files, name), os.O_CREAT | os.O_WRONLY, 0o444))
    print(len(names))


def main(argv):
    if len(argv) == 4 and argv[1] == "rpc-latency":
        return rpc_latency(argv[2], float(argv[3]))
    if len(argv) == 6 and argv[1] == "rpc-call":
        return rpc_call(argv[2], argv[3], argv[4], int(argv[5]))
    if len(argv) == 5 and argv[1] == "rpc-notify":
        return rpc_notify(argv[2], argv[3], argv[4])
    if len(argv) == 4 and argv[1] == "complete-all-but":
        complete_all_but(argv[2], int(argv[3]))
        return 0
    if len(argv) >= 3 and argv[1] == "add":
        add(argv[2], argv[3])
        return 0
    if len(argv) == 6 and argv[1] == "fill":
        return fill(argv[2], argv[3], int(argv[4]), float(argv[5]))
    if len(argv) == 3 and argv[1] == "table":
        return table(argv[2])
    if len(argv) >= 5 and argv[1] == "syncmove":
        meta = argv[2] == "--meta"
        words = [argv[1]] + argv[3:] if meta else argv[1:]
        if len(words) >= 4 and words[4:5] in ([], ["--"]):
            return syncmove(words[1], words[2], int(words[3]), words[5:], meta=meta)
    if len(argv) in (5, 6) and argv[1] == "latency":
        return latency(argv[2], argv[3], float(argv[4]), *argv[5:])
    if len(argv) == 5 and argv[1] == "offsets":
        print("\n".join(str(o) for o in offsets(int(argv[2]), int(argv[3]), int(argv[4]))))
        return 0
    if len(argv) >= 2 and argv[1] == "reads":
        hold = "--hold" in argv
        argv = [word for word in argv if word != "--hold"]
        if len(argv) in (6, 8):
            mnt, task = (argv[6], argv[7]) if len(argv) == 8 else (None, None)
            return reads(argv[2], argv[3], int(argv[4]), int(argv[5]), mnt, task, hold)
    if len(argv) in (4, 5) and argv[1] == "cat":
        return cat(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
