"""R20, R21, R23: task status, the root table, and reading unfinished data."""

import os
import random
import re
import time

import pytest

from support.files import MiB, content, read_range, sha256_file, sha256_of
from support.status import (ETA_RE, PROGRESS_RE, SPEED_RE, STATES, STATUS_KEYS, TIME_RE,
                            Table, parse_size, parse_status_pairs)
from support.waiting import wait_until, within


def _check_common(status, task, url):
    assert status["id"] == str(task)
    assert status["url"] == url
    assert status["state"] in STATES
    assert PROGRESS_RE.fullmatch(status["progress"]), status["progress"]
    assert status["downloaded"].isdigit()
    assert SPEED_RE.fullmatch(status["speed"]), status["speed"]
    assert ETA_RE.fullmatch(status["eta"]), status["eta"]
    assert status["attempts"].isdigit()
    assert TIME_RE.fullmatch(status["added"]), status["added"]


def test_r20_status_keys_in_order(mount, faultserver):
    size = 8 * MiB
    url = faultserver.add("/keys.bin", size=size, seed=3, throttle=2 * MiB)
    task = mount.add_one(url)
    mount.wait_downloaded(task, MiB)
    pairs = parse_status_pairs(mount.read(f"queue/{task}/status"))
    assert [key for key, _ in pairs] == STATUS_KEYS
    status = dict(pairs)
    _check_common(status, task, url)
    assert status["name"] == "keys.bin"
    assert status["state"] == "downloading"
    assert status["total"] == str(size)
    assert status["progress"].endswith("%")
    assert int(status["attempts"]) >= 1
    assert status["error"] == "-"
    assert status["completed"] == "-"
    done = mount.wait_state(task, "completed")
    assert [key for key, _ in parse_status_pairs(mount.read(f"queue/{task}/status"))] == STATUS_KEYS
    _check_common(done, task, url)
    assert re.fullmatch(r"100(\.0+)?%", done["progress"]), done["progress"]
    assert done["downloaded"] == done["total"] == str(size)
    assert done["eta"] == "-"
    assert done["error"] == "-"
    assert TIME_RE.fullmatch(done["completed"]), done["completed"]
    assert done["completed"] >= done["added"]


def test_r20_speed_and_eta_while_moving(mount, faultserver):
    size = 16 * MiB
    task = mount.add_one(faultserver.add("/speed.bin", size=size, throttle=2 * MiB))
    status = mount.wait_downloaded(task, 6 * MiB)  # a few seconds in: the window is full
    speed = parse_size(status["speed"][:-2])
    assert 1 * MiB <= speed <= 3 * MiB, status["speed"]
    match = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", status["eta"])
    assert match and status["eta"] != "-", status["eta"]
    hours, minutes, seconds = (int(g or 0) for g in match.groups())
    eta = hours * 3600 + minutes * 60 + seconds
    left = (size - int(status["downloaded"])) / (2 * MiB)
    assert left / 2 - 1 <= eta <= left * 2 + 1, (status["eta"], left)


def test_r20_paused_not_moving(mount, faultserver):
    task = mount.add_one(faultserver.add("/p.bin", size=8 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(task, MiB)
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused")
    status = wait_until(lambda: mount.status(task)["speed"] == "0 B/s" and mount.status(task),
                        5, "speed to drop to 0 B/s")
    assert status["eta"] == "-"


def test_r20_unknown_total(mount, faultserver):
    size = 4 * MiB
    url = faultserver.add("/chunked.bin", size=size, seed=9, length_unknown=True, throttle=2 * MiB)
    task = mount.add_one(url)
    status = mount.wait_downloaded(task, 256 * 1024)
    assert status["total"] == "unknown"
    assert status["progress"] == "-"
    mount.wait_state(task, "completed")
    assert sha256_file(mount.mp / "files" / "chunked.bin") == sha256_of(9, size)


def test_r20_error_is_a_sentence(make_mount, faultserver):
    mount = make_mount("--max-tries", "1")
    task = mount.add_one(faultserver.add("/gone.bin", status=404, status_times=None))
    status = mount.wait_state(task, "failed")
    assert "HTTP 404" in status["error"], status["error"]


def test_r21_root_status_table(make_mount, faultserver):
    mount = make_mount("--max-active", "2")
    done = mount.add_one(faultserver.add("/done.bin", size=3 * MiB, seed=1))
    mount.wait_state(done, "completed")
    moving = mount.add_one(faultserver.add("/moving%20file.bin", size=64 * MiB, throttle=MiB))
    held = mount.add_one(faultserver.add("/held.bin", size=64 * MiB, throttle=MiB))
    mount.wait_downloaded(held, 1)
    mount.ctl(held, "pause")
    mount.wait_state(held, "paused")
    mount.wait_downloaded(moving, 1)
    table = Table(mount.root_status())
    header_words = re.findall(r"[a-z]+", table.header.lower())
    wanted = ["id", "state", "progress", "speed", "eta", "name"]
    assert [w for w in header_words if w in wanted] == wanted, table.header
    assert header_words[0] == "id" and header_words[-1] == "name", table.header
    rows = {row["id"]: row for row in table.rows()}
    assert set(rows) == {done, moving, held}
    name_at = table.name_column()
    for task, row in rows.items():
        status = mount.status(task)
        assert row["state"] == status["state"], row["line"]
        # Aligned columns: every name starts under the header's "name".
        assert row["line"][name_at:].rstrip() == status["name"], (table.text, name_at)
        assert row["line"][name_at - 1] == " ", row["line"]
    assert rows[moving]["state"] == "downloading"
    assert table.totals.lower().startswith("total"), table.totals
    assert re.search(r"\b3 tasks\b", table.totals), table.totals
    assert table.state_counts() == {"downloading": 1, "paused": 1, "completed": 1}, table.totals
    assert re.search(r" of ", table.totals) and SPEED_RE.search(table.totals), table.totals


def test_r21_totals_bytes(mount, faultserver):
    sizes = [3 * MiB, 5 * MiB]
    tasks = [mount.add_one(faultserver.add(f"/t{i}.bin", size=size)) for i, size in enumerate(sizes)]
    for task in tasks:
        mount.wait_state(task, "completed")
    table = Table(mount.root_status())
    match = re.search(r"([\d.]+ ?[KMGT]?i?B) of ([\d.]+ ?[KMGT]?i?B)", table.totals)
    assert match, table.totals
    done, known = (parse_size(re.sub(r"(\d)([KMGT]?i?B)$", r"\1 \2", g)) for g in match.groups())
    assert abs(done - sum(sizes)) <= 0.05 * sum(sizes), table.totals
    assert abs(known - sum(sizes)) <= 0.05 * sum(sizes), table.totals
    assert table.state_counts() == {"completed": 2}, table.totals
    assert table.totals.rstrip().endswith("/s"), table.totals


def test_r21_totals_count_unknown_sizes_only_in_bytes_done_and_say_how_many(mount, faultserver):
    known_size = 3 * MiB
    known = mount.add_one(faultserver.add("/known.bin", size=known_size, seed=1))
    mount.wait_state(known, "completed")
    unknown = mount.add_one(faultserver.add("/nolength.bin", size=4 * MiB, seed=2,
                                            length_unknown=True, throttle=MiB))
    status = mount.wait_downloaded(unknown, 512 * 1024)
    assert status["total"] == "unknown"
    table = Table(mount.root_status())
    totals = table.totals
    assert re.search(r"\b1 task of unknown size\b", totals), totals
    match = re.search(r"([\d.]+ ?[KMGT]?i?B) of ([\d.]+ ?[KMGT]?i?B)", totals)
    assert match, totals
    done, of = (parse_size(re.sub(r"(\d)([KMGT]?i?B)$", r"\1 \2", g)) for g in match.groups())
    # Bytes done include the task of unknown size; bytes known do not.
    assert done >= known_size + 512 * 1024 - 0.05 * known_size, totals
    assert abs(of - known_size) <= 0.05 * known_size, totals
    assert table.state_counts() == {"downloading": 1, "completed": 1}, totals
    assert SPEED_RE.search(totals), totals
    mount.wait_state(unknown, "completed", timeout=60)
    totals = Table(mount.root_status()).totals
    assert "unknown" not in totals, f"a finished download's size is known: {totals}"


def _pread_within(path, offset, length, timeout=5.0):
    """`read_range` in a helper thread with a deadline."""
    return within(lambda: read_range(path, offset, length), timeout, f"a read at {offset} of {path}")


@pytest.mark.parametrize("total", ["known", "unknown"])
def test_r23_partial_reads_return_only_the_servers_bytes(mount, faultserver, total):
    """A read of an unfinished download never returns bytes other than the
    server's. With a known total the file has its full size and any range
    reads as the server's bytes (a read of missing bytes waits for them);
    with no Content-Length it grows and ends where the arrived bytes end."""
    size = 6 * MiB
    expected = content(5, size)
    unknown = total == "unknown"
    task = mount.add_one(faultserver.add("/grow.bin", size=size, seed=5, throttle=MiB,
                                         length_unknown=unknown))
    mount.wait_downloaded(task, 64 * 1024)
    path = mount.task_dir(task) / "grow.bin"
    pick = random.Random(23)
    partial_reads = 0
    deadline = time.monotonic() + 60
    while True:
        status = mount.status(task)
        if status["state"] == "completed":
            break
        assert time.monotonic() < deadline, f"the download did not end: {status}"
        held = int(status["downloaded"])
        reported = os.stat(path).st_size
        if unknown:
            data = _pread_within(path, 0, size)
            assert data == expected[:len(data)], f"bytes that never arrived (read {len(data)})"
            assert len(data) >= min(reported, held), (len(data), reported, held)
            past_end = _pread_within(path, reported + 65536, 4096)
            assert past_end == expected[reported + 65536:][:len(past_end)]
        else:
            assert reported == size, f"st_size {reported} of a {size}-byte download"
            offset = pick.randrange(0, size - 65536)
            data = _pread_within(path, offset, 65536)
            assert data == expected[offset:offset + 65536], f"not the server's bytes at {offset}"
        if held < size:
            partial_reads += 1
        time.sleep(0.05)  # pace the loop
    assert partial_reads >= 3, "never saw the file while it was partial"
    assert _pread_within(path, 0, size + 1) == expected
