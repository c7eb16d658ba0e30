"""R18: segmented downloads — several connections per task, each on its own range.

What the engine does, and what these tests hold it to:

- A fresh task's first request is a plain GET. Once that answer gives the
  total, the task opens more connections, up to `split`, each asking a
  closed range `bytes=A-B` with If-Range (strong ETag, else Last-Modified);
  the first connection stops where the second's range begins. No segment is
  under 1 MiB (a file under 2 MiB gets one connection). A connection that
  finishes takes half of the largest remaining segment.
- At most `--max-connections-per-host` (default 8) connections go to one
  host, across tasks.
- A resumed task whose bytes are a prefix asks `bytes=N-` first; further
  connections ask closed ranges.
- A 200 to a ranged request, a 206 whose Content-Range is not the range
  asked for, or a changed strong ETag or total: the task goes on with one
  connection from zero and its log says it started over, and why.
- `connections` in the status is the number of transfers open now.
- After kill -9 and a remount each unfinished range continues from its own
  checkpoint: at most 8 MiB per connection is fetched again (R51).

Every download here is checked twice: the file's sha-256, and what the
server really sent (the byte ranges it wrote, so a refetch shows). Servers
throttle each connection, as nginx's `limit_rate` does, so that several
connections are measurably faster than one and a download lasts long enough
to be watched, paused or killed.
"""

import re
import time

import pytest

from support.faultserver import DEFAULT_LAST_MODIFIED
from support.files import KiB, MiB, merge_spans, sha256_file, sha256_of
from support.mount import write_command
from support.nginx import wait_for_access
from support.waiting import wait_until

SEGMENT_MIN = MiB            # R18: no segment smaller than 1 MiB
CHECKPOINT_BYTES = 8 * MiB   # R51: a checkpoint at least every 2 s or 8 MiB per connection
# Bytes a server may write past the point where the client let go of a
# connection (its socket buffers, one throttled block): a cut-short range.
CUT_SLACK = 512 * KiB
START_OVER_RE = re.compile(r"start\w* over|from (zero|0|scratch|the (start|beginning))",
                           re.IGNORECASE)
CLOSED_RANGE_RE = re.compile(r"bytes=(\d+)-(\d+)")


# -- helpers --------------------------------------------------------------------

def _run_to_completion(mount, task, timeout=30):
    """Poll the task until it completes (fail at once if it fails).

    Returns the highest `connections` its status showed on the way.
    """
    highest, last = 0, None
    deadline = time.monotonic() + timeout
    while True:
        try:
            last = mount.status(task)
        except FileNotFoundError:
            last = None
        if last is not None:
            if last["connections"].isdigit():
                highest = max(highest, int(last["connections"]))
            if last["state"] == "completed":
                return highest
            if last["state"] == "failed":
                raise AssertionError(f"task {task} failed: {last}\n{mount.task_log(task)}")
        if time.monotonic() >= deadline:
            raise AssertionError(f"task {task} not completed after {timeout}s: {last}")
        time.sleep(0.05)


def _wait_connections(mount, task, at_least, timeout=10):
    """Poll until the task's status shows `at_least` open connections; return the status."""
    def check():
        status = mount.status(task)
        assert status["state"] not in ("completed", "failed"), \
            f"task ended before it had {at_least} connections: {status}"
        return status if int(status["connections"]) >= at_least else None
    return wait_until(check, timeout, f"task {task} to show {at_least} connections")


def _delivered(gets, version=None):
    """The file spans the server wrote (200/206 bodies), optionally of one version."""
    return [r.delivered for r in gets
            if r.delivered is not None and (version is None or r.version == version)]


def _refetched(spans):
    """Bytes written more than once: the sum of the spans minus their union."""
    return sum(e - s for s, e in spans) - sum(e - s for s, e in merge_spans(spans))


def _assert_fetched_once(gets, size, slack, version=None):
    """The server wrote every byte of the file, and at most `slack` bytes twice."""
    spans = _delivered(gets, version)
    assert merge_spans(spans) == [(0, size)], \
        f"the server did not write the whole file: {merge_spans(spans)} of {size}"
    again = _refetched(spans)
    assert again <= slack, (f"{again / MiB:.2f} MiB written more than once "
                            f"(allowed {slack / MiB:.2f}): {_describe(gets)}")


def _describe(gets):
    return [(r.range, r.status, r.body_start, r.sent) for r in gets]


def _closed_ranges(gets):
    """(A, B) of every GET that asked a closed range `bytes=A-B`."""
    return [(r.range_start, r.range_end) for r in gets if r.range_end is not None]


def _assert_whole(mount, name, seed, size):
    digest = sha256_file(mount.mp / "files" / name)
    assert digest == sha256_of(seed, size), f"{name}: wrong content"


def _start_over_lines(mount, task):
    return [line for line in mount.task_log(task).splitlines() if START_OVER_RE.search(line)]


def _assert_started_over(mount, task, reason_re=None):
    """The task log says it started over from zero (and, given `reason_re`, why)."""
    lines = _start_over_lines(mount, task)
    log = mount.task_log(task)
    assert lines, f"the task log does not say it started over from zero:\n{log}"
    if reason_re is not None:
        assert any(re.search(reason_re, line, re.IGNORECASE) for line in lines), \
            f"no start-over line gives the reason ({reason_re}):\n{log}"


# -- a: several connections against nginx's limit_rate ---------------------------

def test_r18_r20_segmented_against_nginx_limit_rate(mount, nginx, nginx_file):
    size = 24 * MiB
    name, digest = nginx_file("seg-nginx.bin", size, seed=181)
    url = nginx.url(f"/{name}", rate="4m")   # 4 MiB/s per connection: 6 s on one
    task = mount.add_one(url, "split=4")
    highest = _run_to_completion(mount, task, timeout=30)
    assert highest > 1, "status never showed more than one connection"
    assert mount.status(task)["connections"] == "0", "connections left open after completion"
    assert sha256_file(mount.mp / "files" / name) == digest
    uri = f"/rate/4m/{name}"
    # nginx logs a request when it ends; the last ones may come a moment late.
    wait_until(lambda: sum(r.sent for r in nginx.access_log(uri)) >= size, 10,
               "nginx to log the whole file as sent")
    records = wait_for_access(nginx, uri, 2)
    # (The log is in the order requests ended, not began.)
    plain = [r for r in records if r.range is None]
    assert len(plain) == 1, f"want one request without a range (the first): {records}"
    ranged = {r.range for r in records if r.range}
    assert len(ranged) >= 2, f"want two or more ranged requests: {records}"
    assert all(r.status == 206 for r in records if r.range), records
    assert not any(r.range_start == 0 for r in records), f"a restart from zero: {records}"
    # nginx's limit_rate lets a connection run up to a second ahead, so a
    # connection cut short may have been sent up to 4 MiB it did not need.
    sent = sum(r.sent for r in records)
    assert sent <= 1.5 * size, f"nginx sent {sent / MiB:.1f} MiB for a {size // MiB} MiB file"


# -- b: closed ranges with If-Range that cover the file --------------------------

@pytest.mark.parametrize("validators, if_range", [
    ({"etag": '"seg-b"'}, '"seg-b"'),
    ({"no_etag": True}, DEFAULT_LAST_MODIFIED),
], ids=["strong-etag", "last-modified"])
def test_r18_later_requests_ask_closed_ranges_with_if_range(mount, faultserver, validators,
                                                            if_range):
    size = 24 * MiB
    url = faultserver.add("/b.bin", size=size, seed=182, throttle=4 * MiB, **validators)
    task = mount.add_one(url, "split=4")
    highest = _run_to_completion(mount, task)
    _assert_whole(mount, "b.bin", 182, size)
    gets = faultserver.gets("/b.bin")
    assert gets[0].range is None, f"the first request was not a plain GET: {gets[0].range!r}"
    assert gets[0].status == 200
    later = gets[1:]
    assert len(later) >= 1, "only one request for a 24 MiB file with split=4"
    assert highest > 1 and faultserver.max_concurrent("/b.bin") > 1, \
        "never more than one connection at once"
    for get in later:
        assert CLOSED_RANGE_RE.fullmatch(get.range or ""), \
            f"a later request did not ask a closed range: {get.range!r}"
        assert get.if_range == if_range, f"If-Range {get.if_range!r}, want {if_range!r}"
        assert get.status == 206, (get.range, get.status)
    ranges = _closed_ranges(later)
    for first, last in ranges:
        assert 0 < first <= last < size, f"range {first}-{last} outside the file"
        assert last - first + 1 >= SEGMENT_MIN or last == size - 1, \
            f"range {first}-{last} is under 1 MiB and not the file's tail"
    # The first connection's segment is [0, first range), itself at least 1 MiB.
    assert min(first for first, _ in ranges) >= SEGMENT_MIN, ranges
    asked = [(0, min(first for first, _ in ranges))] + [(a, b + 1) for a, b in ranges]
    assert merge_spans(asked) == [(0, size)], f"the ranges asked do not cover the file: {ranges}"
    _assert_fetched_once(gets, size, CUT_SLACK * len(gets))


# -- c: a small file gets one connection -----------------------------------------

def test_r18_file_under_2_mib_uses_one_get(mount, faultserver):
    size = 3 * MiB // 2
    url = faultserver.add("/c.bin", size=size, seed=183, throttle=MiB)
    task = mount.add_one(url, "split=8")
    highest = _run_to_completion(mount, task)
    _assert_whole(mount, "c.bin", 183, size)
    gets = faultserver.gets("/c.bin")
    assert len(gets) == 1, f"want exactly one GET for 1.5 MiB: {_describe(gets)}"
    assert gets[0].range is None and gets[0].complete
    assert highest <= 1, f"status showed {highest} connections"
    assert faultserver.bytes_sent("/c.bin") == size


# -- d, e: servers that do not keep to the ranges -------------------------------

def _assert_went_on_with_one_connection(faultserver, path, split):
    """No new segments once the server broke the rules: the closed ranges
    asked are at most the first fan-out (split - 1), and once those requests
    have ended, no two requests run at once."""
    gets = faultserver.gets(path)
    ranged = [r for r in gets if r.range_end is not None]
    assert len(ranged) <= split - 1, f"went on asking segments: {_describe(gets)}"
    if ranged:
        since = max(r.finished or time.monotonic() for r in ranged)
        assert faultserver.max_concurrent(path, since=since) <= 1, \
            f"more than one connection after starting over: {_describe(gets)}"


def test_r18_server_ignoring_ranges_after_the_first_answer(mount, faultserver):
    size, split = 8 * MiB, 4
    url = faultserver.add("/d.bin", size=size, seed=184, throttle=4 * MiB,
                          ranges_after_first=False)
    task = mount.add_one(url, f"split={split}")
    _run_to_completion(mount, task)
    _assert_whole(mount, "d.bin", 184, size)
    gets = faultserver.gets("/d.bin")
    assert any(r.range and r.status == 200 for r in gets), \
        f"no ranged request was answered 200: {_describe(gets)}"
    _assert_started_over(mount, task, r"\b200\b|ignor|range")
    _assert_went_on_with_one_connection(faultserver, "/d.bin", split)
    # Starting over may fetch again what the first connection had, not more.
    _assert_fetched_once(gets, size, size + CUT_SLACK * len(gets))


def test_r18_validator_changed_between_segments(mount, faultserver):
    """The file changes after the first answer: the ranged requests' If-Range
    no longer matches, they get 200 with the new file, and the task ends
    with the new file (none of the old one's bytes)."""
    size, split = 8 * MiB, 4
    url = faultserver.add("/e.bin", size=size, seed=185, throttle=4 * MiB, change_etag_after=1)
    task = mount.add_one(url, f"split={split}")
    _run_to_completion(mount, task)
    seed, new_size, _, _ = faultserver.resource("/e.bin").current()
    assert seed != 185
    _assert_whole(mount, "e.bin", seed, new_size)
    gets = faultserver.gets("/e.bin")
    _, _, old_etag, _ = faultserver.resource("/e.bin").current(0)
    ranged = [r for r in gets if r.range_end is not None]
    assert ranged, f"no ranged request: {_describe(gets)}"
    assert all(r.if_range == old_etag and r.status == 200 for r in ranged), \
        f"want If-Range {old_etag} answered 200 (the file changed): {_describe(gets)}"
    _assert_started_over(mount, task)
    _assert_went_on_with_one_connection(faultserver, "/e.bin", split)
    _assert_fetched_once(gets, size, CUT_SLACK * len(gets), version=1)


@pytest.mark.parametrize("knobs, reason", [
    # The server ignores If-Range: a 206 of the new file, under a new ETag.
    ({"change_etag_after": 1, "ignore_if_range": True}, r"etag|validator|chang"),
    # Same validators, but the file grew: a 206 whose total is another.
    ({"change_after_requests": 1, "changed_size": 9 * MiB, "changed_keep_validators": True},
     r"total|size|length|chang"),
], ids=["changed-strong-etag", "changed-total"])
def test_r18_206_of_a_changed_file_starts_over(mount, faultserver, knobs, reason):
    size, split = 8 * MiB, 4
    url = faultserver.add("/e2.bin", size=size, seed=186, throttle=4 * MiB, **knobs)
    task = mount.add_one(url, f"split={split}")
    _run_to_completion(mount, task)
    seed, new_size, _, _ = faultserver.resource("/e2.bin").current()
    _assert_whole(mount, "e2.bin", seed, new_size)
    gets = faultserver.gets("/e2.bin")
    assert any(r.status == 206 and r.version == 1 for r in gets), \
        f"no 206 of the changed file was served: {_describe(gets)}"
    _assert_started_over(mount, task, reason)
    _assert_went_on_with_one_connection(faultserver, "/e2.bin", split)
    _assert_fetched_once(gets, new_size, CUT_SLACK * len(gets), version=1)


@pytest.mark.parametrize("knobs", [
    {"content_range_shift": 4096},        # starts 4 KiB later, runs to the end
    {"content_range_end_shift": -4096},   # the asked start, but ends 4 KiB early
], ids=["other-start", "other-end"])
def test_r18_206_with_another_content_range_starts_over(mount, faultserver, knobs):
    size, split = 8 * MiB, 4
    url = faultserver.add("/f.bin", size=size, seed=187, throttle=4 * MiB, **knobs)
    task = mount.add_one(url, f"split={split}")
    _run_to_completion(mount, task)
    _assert_whole(mount, "f.bin", 187, size)
    gets = faultserver.gets("/f.bin")
    odd = [r for r in gets if r.status == 206 and r.range_end is not None
           and (r.body_start, r.body_end) != (r.range_start, r.range_end + 1)]
    assert odd, f"no misplaced 206 was served: {_describe(gets)}"
    _assert_started_over(mount, task, r"content-range|range")
    _assert_went_on_with_one_connection(faultserver, "/f.bin", split)
    _assert_fetched_once(gets, size, size + CUT_SLACK * len(gets))


# -- f: pause and resume ------------------------------------------------------------

def test_r18_r30_pause_and_resume_a_segmented_download(mount, faultserver):
    size, split = 24 * MiB, 4
    url = faultserver.add("/p.bin", size=size, seed=188, etag='"p"', throttle=4 * MiB)
    task = mount.add_one(url, f"split={split}")
    _wait_connections(mount, task, 2)
    begun = int(mount.status(task)["downloaded"])
    mount.wait_downloaded(task, begun + 4 * MiB, timeout=10)
    mount.ctl(task, "pause")
    kept = int(mount.wait_state(task, "paused", timeout=5)["downloaded"])
    assert 0 < kept < size
    wait_until(lambda: all(r.finished for r in faultserver.gets("/p.bin")), 5,
               "every transfer to stop")
    wait_until(lambda: mount.status(task)["connections"] == "0", 3,
               "the paused task to show no connections")
    before = len(faultserver.gets("/p.bin"))
    mount.ctl(task, "resume")
    _run_to_completion(mount, task)
    _assert_whole(mount, "p.bin", 188, size)
    gets = faultserver.gets("/p.bin")
    resumed = gets[before:]
    assert resumed, "nothing was requested after the resume"
    for get in resumed:
        assert get.range_start, f"a request after the resume started from zero: {get.range!r}"
        assert get.status == 206 and get.if_range == '"p"', (get.range, get.if_range, get.status)
    # R18/R51: each range continues where it was; at most a checkpoint
    # interval per connection is fetched again (a pause should lose nothing).
    _assert_fetched_once(gets, size, CHECKPOINT_BYTES * split)


def test_r18_r52_resume_of_a_prefix_asks_open_range_then_closed_ranges(mount, faultserver):
    """Paused while one connection had a prefix; resumed with split 4: the
    first request asks `bytes=N-`, the further ones closed ranges past N."""
    size = 16 * MiB
    url = faultserver.add("/prefix.bin", size=size, seed=189, etag='"pre"', throttle=4 * MiB)
    task = mount.add_one(url, "split=1")
    mount.wait_downloaded(task, 2 * MiB)
    mount.ctl(task, "pause")
    kept = int(mount.wait_state(task, "paused", timeout=5)["downloaded"])
    wait_until(lambda: all(r.finished for r in faultserver.gets("/prefix.bin")), 5,
               "the transfer to stop")
    assert len(faultserver.gets("/prefix.bin")) == 1, "split=1 made more than one request"
    mount.ctl(task, "split 4")
    mount.ctl(task, "resume")
    _run_to_completion(mount, task)
    _assert_whole(mount, "prefix.bin", 189, size)
    gets = faultserver.gets("/prefix.bin")
    # The further connections may come in before the first one's request.
    resumed = gets[1:]
    open_ended = [r for r in resumed if r.range_end is None]
    further = [r for r in resumed if r.range_end is not None]
    assert len(open_ended) == 1, f"want one open-ended request: {_describe(gets)}"
    first = open_ended[0]
    assert first.range == f"bytes={kept}-", f"resume asked {first.range!r}, kept {kept}"
    assert first.if_range == '"pre"' and first.status == 206
    assert further, f"no further connection after resuming with split 4: {_describe(gets)}"
    for get in further:
        assert CLOSED_RANGE_RE.fullmatch(get.range or ""), get.range
        assert get.range_start > kept and get.if_range == '"pre"', (get.range, get.if_range)
    _assert_fetched_once(gets, size, CUT_SLACK * len(gets))


def test_r18_ctl_split_1_on_a_paused_task_resumes_with_one_connection(mount, faultserver):
    size = 24 * MiB
    url = faultserver.add("/one.bin", size=size, seed=190, throttle=4 * MiB)
    task = mount.add_one(url, "split=4")
    _wait_connections(mount, task, 2)
    mount.ctl(task, "pause")
    mount.wait_state(task, "paused", timeout=5)
    wait_until(lambda: all(r.finished for r in faultserver.gets("/one.bin")), 5,
               "every transfer to stop")
    mount.ctl(task, "split 1")
    faultserver.update("/one.bin", throttle=16 * MiB)
    resumed_at = time.monotonic()
    mount.ctl(task, "resume")
    highest = _run_to_completion(mount, task)
    _assert_whole(mount, "one.bin", 190, size)
    assert faultserver.max_concurrent("/one.bin", since=resumed_at) <= 1, \
        _describe(faultserver.gets("/one.bin"))
    assert highest <= 1, f"status showed {highest} connections after split 1"
    _assert_fetched_once(faultserver.gets("/one.bin"), size, CHECKPOINT_BYTES * 4)


# -- g: kill -9 mid-download ----------------------------------------------------------

def test_r18_r51_kill9_during_segmented_download(mount, faultserver):
    size, split = 48 * MiB, 4
    url = faultserver.add("/k.bin", size=size, seed=191, etag='"k"', throttle=3 * MiB)
    task = mount.add_one(url, f"split={split}")
    _wait_connections(mount, task, 2)
    # Past the first checkpoint (2 s at the latest) on every connection.
    mount.wait_downloaded(task, size // 2, timeout=15)
    mount.kill9()
    wait_until(lambda: all(r.finished for r in faultserver.gets("/k.bin")), 5,
               "the server to see the killed daemon's connections close")
    before = len(faultserver.gets("/k.bin"))
    mount.remount()
    _run_to_completion(mount, task, timeout=30)
    _assert_whole(mount, "k.bin", 191, size)
    gets = faultserver.gets("/k.bin")
    earlier, after = gets[:before], gets[before:]
    assert after, "nothing was requested after the remount"
    for get in after:
        assert get.range_start, f"a request after the remount started from zero: {get.range!r}"
        assert get.status == 206, (get.range, get.status)
    # Each range continues from its own checkpoint: what one connection
    # fetches again is at most a checkpoint interval.
    for get in after:
        for start, end in _delivered(earlier):
            if start <= get.range_start < end:
                assert end - get.range_start <= CHECKPOINT_BYTES, \
                    (f"resumed at {get.range_start}, {((end - get.range_start) / MiB):.1f} MiB "
                     f"behind what the connection on [{start}, {end}) had: {_describe(gets)}")
    _assert_fetched_once(gets, size, CHECKPOINT_BYTES * split)


# -- split from the mount option, the root ctl and the input line ----------------------

@pytest.mark.parametrize("mount_options, root_command, task_options, segmented", [
    (("--split", "1"), None, (), False),
    (("--split", "4"), None, (), True),
    (("--split", "4"), "split 1", (), False),
    (("--split", "1"), "split 4", (), True),
    (("--split", "4"), None, ("split=1",), False),
    (("--split", "1"), "split 1", ("split=4",), True),
], ids=["mount-1", "mount-4", "root-ctl-1", "root-ctl-4", "task-1-over-mount-4",
        "task-4-over-root-1"])
def test_r18_r31_where_split_comes_from(make_mount, faultserver, mount_options, root_command,
                                       task_options, segmented):
    mount = make_mount(*mount_options)
    if root_command:
        mount.root_ctl(root_command)
    size = 8 * MiB
    task = mount.add_one(faultserver.add("/s.bin", size=size, seed=192, throttle=4 * MiB),
                         *task_options)
    _run_to_completion(mount, task)
    _assert_whole(mount, "s.bin", 192, size)
    gets = faultserver.gets("/s.bin")
    if segmented:
        assert len(gets) >= 2 and faultserver.max_concurrent("/s.bin") >= 2, _describe(gets)
        assert faultserver.max_concurrent("/s.bin") <= 4, _describe(gets)
    else:
        assert len(gets) == 1, f"want one GET with split 1: {_describe(gets)}"
    _assert_fetched_once(gets, size, CUT_SLACK * len(gets))


# -- h: ctl split ------------------------------------------------------------------------

def test_r30_r31_ctl_split_accepted(mount, faultserver):
    task = mount.add_one(faultserver.add("/h.bin", size=16 * MiB, seed=193, throttle=MiB),
                         "split=4")
    mount.wait_downloaded(task, 1)
    for command in ("split 1", "split 16", "split 2"):
        write_command(mount.task_dir(task) / "ctl", command)
    for command in ("split 2", "split 1", "split 16"):
        write_command(mount.mp / "ctl", command)
    assert mount.status(task)["state"] in ("downloading", "queued", "retrying")
    assert "refused" not in mount.log(), mount.log()


# -- i: split= on the input line ----------------------------------------------------------

@pytest.mark.parametrize("option", ["split=0", "split=17", "split=abc", "split=", "split=-1",
                                    "split=2.5"])
def test_r10_r11_bad_split_option_refused(mount, faultserver, option):
    url = faultserver.add("/i.bin", size=1000)
    mount.assert_refused_write(f"{url}\n  {option}\n".encode())
    assert faultserver.gets("/i.bin") == [], "a refused URL was fetched"


@pytest.mark.parametrize("split", [1, 3, 16])
def test_r10_split_option_accepted_and_kept_to(mount, faultserver, split):
    size = 12 * MiB
    task = mount.add_one(faultserver.add("/i.bin", size=size, seed=194, throttle=4 * MiB),
                         f"split={split}")
    _run_to_completion(mount, task)
    _assert_whole(mount, "i.bin", 194, size)
    peak = faultserver.max_concurrent("/i.bin")
    assert peak <= split, f"{peak} connections at once with split={split}"
    if split > 1:
        assert peak >= 2, f"split={split} never used a second connection"
    gets = faultserver.gets("/i.bin")
    _assert_fetched_once(gets, size, CUT_SLACK * len(gets))


# -- j: connections per host ----------------------------------------------------------------

def test_r18_max_connections_per_host_across_tasks(make_mount, faultserver):
    mount = make_mount("--max-connections-per-host", "2")
    size = 16 * MiB
    tasks = [mount.add_one(faultserver.add(f"/j{i}.bin", size=size, seed=195 + i,
                                           throttle=4 * MiB), "split=4")
             for i in range(2)]
    for task in tasks:
        _run_to_completion(mount, task, timeout=30)
    for i in range(2):
        _assert_whole(mount, f"j{i}.bin", 195 + i, size)
        gets = faultserver.gets(f"/j{i}.bin")
        _assert_fetched_once(gets, size, CUT_SLACK * len(gets))
    requests = faultserver.max_concurrent()
    connections = faultserver.max_connections()
    assert requests <= 2, f"{requests} requests at once to one host (limit 2)"
    assert connections <= 2, f"{connections} TCP connections at once to one host (limit 2)"


def test_r18_default_max_connections_per_host_is_8(mount, faultserver):
    size = 32 * MiB
    task = mount.add_one(faultserver.add("/eight.bin", size=size, seed=197, throttle=2 * MiB),
                         "split=16")
    highest = _run_to_completion(mount, task)
    _assert_whole(mount, "eight.bin", 197, size)
    peak = faultserver.max_concurrent()
    assert 2 <= peak <= 8, f"{peak} requests at once (default limit 8 per host)"
    assert faultserver.max_connections() <= 8
    assert highest <= 8, f"status showed {highest} connections"
    gets = faultserver.gets("/eight.bin")
    _assert_fetched_once(gets, size, CUT_SLACK * len(gets))


# -- k: the mount options ----------------------------------------------------------------------

@pytest.mark.parametrize("option, value", [
    ("--split", "0"), ("--split", "17"), ("--split", "x"),
    ("--max-connections-per-host", "0"), ("--max-connections-per-host", "x"),
])
def test_r1_r2_bad_split_mount_options_refused(make_mount, tmp_path, option, value):
    mount = make_mount(option, value, start=False)
    mount.mp.mkdir(parents=True)
    result = mount.assert_mount_refused(tmp_path)
    assert option.lstrip("-") in result.stderr, \
        f"the message does not name {option}: {result.stderr!r}"


def test_r1_split_mount_options_at_their_limits_accepted(make_mount):
    mount = make_mount("--split", "16", "--max-connections-per-host", "1")
    assert mount.alive()
    other = make_mount("--split", "1", "--max-connections-per-host", "8")
    assert other.alive()


# -- speed limits apply to the task as a whole (R18, R30) ------------------------

def _socket_buffer_bytes():
    """The most one TCP connection can hold in flight on loopback: the
    kernel's largest receive plus send buffer (tcp_rmem, tcp_wmem maxima)."""
    def largest(name):
        with open(f"/proc/sys/net/ipv4/{name}") as handle:
            return int(handle.read().split()[2])
    return largest("tcp_rmem") + largest("tcp_wmem")


def test_r18_r30_task_limit_holds_across_its_connections(mount, faultserver):
    """`limit 1M` on a task fetching over four connections: the task as a
    whole stays within 10 % of 1 MiB/s over a 5 s window (each connection
    could do 2 MiB/s), and lifting the limit lets all four run."""
    size = 24 * MiB
    task = mount.add_one(faultserver.add("/seglim.bin", size=size, seed=95, throttle=2 * MiB), "split=4")
    mount.ctl(task, "limit 1M")
    _wait_connections(mount, task, 2)
    wait_until(lambda: int(mount.status(task)["downloaded"]) >= 2 * MiB or None, 20, "2 MiB under the limit")
    window = 5.0
    began, before = time.monotonic(), int(mount.status(task)["downloaded"])
    time.sleep(window)  # the measurement window itself
    rate = (int(mount.status(task)["downloaded"]) - before) / (time.monotonic() - began)
    assert 0.9 * MiB <= rate <= 1.1 * MiB, f"{rate / KiB:.0f} KiB/s with four connections under limit 1M"
    assert int(mount.status(task)["connections"]) >= 2, mount.status(task)
    mount.ctl(task, "limit 0")
    _run_to_completion(mount, task, timeout=30)
    assert sha256_file(mount.mp / "files" / "seglim.bin") == sha256_of(95, size)
    # The first GET runs to the file's end and is cut where the second
    # segment begins; while the limit holds it back, the server fills the
    # kernel's socket buffers, which are lost at the cut. Nothing else may
    # be fetched twice: the closed ranges asked are disjoint, but for a tail
    # the endgame handed from a slow connection to a new one once the limit
    # was lifted (the slow one stopped where the new one starts; a loaded
    # machine makes one slow), which the task log says.
    gets = faultserver.gets("/seglim.bin")
    closed = sorted((r.range_start, r.range_end) for r in gets if r.range_end is not None)
    overlapping = [(a, b) for a, b in zip(closed, closed[1:]) if a[1] >= b[0]]
    assert closed and (not overlapping or (all(a[1] == b[1] for a, b in overlapping)
                                           and "endgame: slow connections handed" in mount.task_log(task))), \
        f"ranges asked twice: {closed}"
    assert all(r.sent <= r.range_end - r.range_start + 1 for r in gets if r.range_end is not None)
    buffers = _socket_buffer_bytes()
    assert faultserver.bytes_sent("/seglim.bin") <= size + buffers + 4 * CUT_SLACK
