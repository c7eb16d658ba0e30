"""Many writers at once, and garbage written everywhere it can be written."""

import os
import random
import threading
import time
from urllib.parse import urlsplit

from support.files import KiB, content
from support.status import Table


def test_50_concurrent_writers(mount, faultserver):
    urls = [faultserver.add(f"/c{i}.bin", size=64 * KiB, seed=100 + i) for i in range(50)]
    ids, errors = {}, []
    start = threading.Barrier(50)

    def writer(i):
        try:
            start.wait(10)
            ids[i] = mount.add_one(urls[i])
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append((i, exc))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert len(set(ids.values())) == 50
    assert sorted(ids.values()) == mount.task_ids()
    for i, task in ids.items():
        assert (mount.task_dir(task) / "url").read_text().strip() == urls[i]
    for i, task in ids.items():
        name = mount.wait_state(task, "completed", timeout=60)["name"]
        assert (mount.mp / "files" / name).read_bytes() == content(100 + i, 64 * KiB)
    assert mount.integrity_check() == ["ok"]


def _attempt(path, data):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError:
        return
    try:
        os.write(fd, data)
    except OSError:
        pass
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def _mutate(rng, text):
    data = bytearray(text.encode())
    for _ in range(rng.randint(1, 6)):
        position = rng.randrange(len(data))
        choice = rng.random()
        if choice < 0.4:
            data[position] = rng.randrange(256)
        elif choice < 0.7:
            data.insert(position, rng.choice(b"\n\t \x00\r=:#%\xff/"))
        else:
            del data[position]
    return bytes(data)


def _loopback_only(data):
    """False if the mutated first line could name a host other than 127.0.0.1."""
    first = data.split(b"\n", 1)[0].decode("latin-1")
    try:
        host = urlsplit(first).hostname
    except ValueError:
        return True
    return host in (None, "127.0.0.1") and "@" not in first


def test_fuzz_inputs(make_mount, faultserver):
    mount = make_mount("--max-tries", "1", "--max-active", "2")
    base = f"http://127.0.0.1:{faultserver.port}"
    faultserver.add("/seed.bin", size=1000)
    # Throttled, so the pause finds it downloading: a 10 KiB file at full
    # speed may already be verifying (waiting for its group's flush) or
    # completed, and neither can be paused (R30: EINVAL).
    paused = mount.add_one(faultserver.add("/held.bin", size=10 * KiB, throttle=KiB))
    mount.ctl(paused, "pause")
    rng = random.Random(4242)
    template = (f"{base}/fz.bin\n  out=fuzz.bin\n  header=X-A: b\n"
                f"  checksum=sha-256={'ab' * 32}\n  max-download-limit=1M\n")
    deadline = time.monotonic() + 60
    for round_ in range(300):
        assert time.monotonic() < deadline, "fuzzing took too long"
        noise = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 2048)))
        _attempt(mount.new, noise)
        # Only the path and options are mutated, never the host: stay on loopback.
        mutated = base.encode() + _mutate(rng, template[len(base):])
        if _loopback_only(mutated):
            _attempt(mount.new, mutated)
        _attempt(mount.task_dir(paused) / "ctl", noise[:64])
        _attempt(mount.task_dir(paused) / "ctl", _mutate(rng, rng.choice(["pause\n", "limit 1M\n"])))
        _attempt(mount.mp / "ctl", noise[:128])
        _attempt(mount.mp / "ctl", _mutate(rng, "limit 10M\n"))
        if round_ % 50 == 0:
            assert mount.alive(), f"daemon died in round {round_}"
    assert mount.alive(), "the daemon died"
    Table(mount.root_status())
    for task in mount.task_ids():
        mount.status(task)
    assert mount.integrity_check() == ["ok"]
    # Still works: a normal download completes.
    task = mount.add_one(f"{base}/seed.bin")
    mount.root_ctl("limit 0")
    mount.wait_state(task, "completed", timeout=30)
    assert mount.unmount() == 0, mount.output()


def test_r53_logs_stay_bounded_while_mounted(mount):
    """A log written in a loop (here: 6,000 refused writes, each logged) is cut
    back as it grows, not only at the next mount: the catalog stays bounded."""
    import errno
    import sqlite3
    fd = os.open(mount.new, os.O_WRONLY)
    try:
        for _ in range(6000):
            try:
                os.write(fd, b"file:///etc/passwd\n")
                raise AssertionError("a file: URL was accepted")
            except OSError as exc:
                assert exc.errno == errno.EINVAL
    finally:
        os.close(fd)
    with sqlite3.connect(f"file:{mount.state / 'catalog.sqlite'}?mode=ro", uri=True, timeout=5) as db:
        (lines,) = db.execute("SELECT COUNT(*) FROM event WHERE taskID IS NULL").fetchone()
    assert 5000 <= lines <= 5500, f"{lines} daemon log lines kept (shown: 5,000, trimmed every 500)"
    assert len(mount.log().splitlines()) == 5000
