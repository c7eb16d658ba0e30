"""R19: mirrors — several URLs of one file on one input line, TAB-separated.

What these tests hold downloadfs to:

- A line `URL1<TAB>URL2…` is one task. Its `url` is the first URL; its
  log names the others when it is added.
- The task's connections are spread over its URLs; the file is right and
  no byte is fetched much more than once, whichever mirror sent it.
- A mirror that fails for good (a 4xx, another total, another strong ETag
  than the first answer) is dropped with a task log line, and the file
  comes from the others; the task fails only when no URL is left.
- Adding any one of a task's URLs again answers that task's id (R13).
- Each URL of the line is checked as a single URL is (R11); an empty field
  (two TABs in a row, a TAB at the end) is refused too.

Several paths on one fault server serve as the mirrors: the same seed and
size is the same content (and the same default ETag). Every download is
checked twice: the file's sha-256, and what the server really sent.
"""

import re

import pytest

from support.files import KiB, MiB, merge_spans, sha256_file, sha256_of

# Bytes a server may write past the point where the client let go of a
# connection (socket buffers, one throttled block), per connection.
SLACK_PER_CONNECTION = MiB


# -- helpers --------------------------------------------------------------------

def _line(*urls):
    """One input line of mirrors."""
    return "\t".join(urls) + "\n"


def _add_line(mount, *urls, split=None):
    """Add one line of mirrors (with `split=N`) on one handle, read back its id (R12)."""
    ids = mount.add(_line(*urls) + (f"  split={split}\n" if split else ""))
    assert len(ids) == 1, f"want one id for a line of mirrors, got {ids}"
    return ids[0]


def _describe(gets):
    return [(r.path, r.range, r.status, r.body_start, r.sent) for r in gets]


def _dropped_lines(mount, task, url):
    """The task log's lines saying `url` was dropped."""
    return [line for line in mount.task_log(task).splitlines()
            if f"mirror {url} dropped" in line]


def _assert_dropped(mount, task, url, reason_re=None):
    lines = _dropped_lines(mount, task, url)
    log = mount.task_log(task)
    assert len(lines) == 1, f"want one line saying {url} was dropped:\n{log}"
    if reason_re is not None:
        assert re.search(reason_re, lines[0], re.IGNORECASE), \
            f"the drop line does not say why ({reason_re}): {lines[0]!r}"


def _assert_whole(mount, name, seed, size):
    assert sha256_file(mount.mp / "files" / name) == sha256_of(seed, size), f"{name}: wrong content"


# -- a: connections spread over two mirrors --------------------------------------

def test_r19_connections_are_spread_over_the_mirrors(mount, faultserver):
    size = 24 * MiB
    first = faultserver.add("/one/a.bin", size=size, seed=191, throttle=4 * MiB)
    second = faultserver.add("/two/a.bin", size=size, seed=191, throttle=4 * MiB)
    task = _add_line(mount, first, second, split=4)
    assert mount.read(f"queue/{task}/url").strip() == first
    mount.wait_state(task, "completed", timeout=40)
    _assert_whole(mount, "a.bin", 191, size)

    gets = faultserver.gets("/one/a.bin") + faultserver.gets("/two/a.bin")
    for path in ("/one/a.bin", "/two/a.bin"):
        ranged = [r for r in faultserver.gets(path) if r.range is not None]
        assert ranged, f"{path} got no ranged request: {_describe(gets)}"
        assert all(r.status == 206 for r in ranged), _describe(gets)
    spans = [r.delivered for r in gets if r.delivered is not None]
    assert merge_spans(spans) == [(0, size)], f"the mirrors did not send the whole file: {merge_spans(spans)}"
    sent = sum(r.sent for r in gets)
    allowed = size + SLACK_PER_CONNECTION * len(gets)
    assert sent <= allowed, (f"the mirrors sent {sent / MiB:.1f} MiB for a {size // MiB} MiB file "
                             f"over {len(gets)} requests: {_describe(gets)}")
    assert not _dropped_lines(mount, task, first) and not _dropped_lines(mount, task, second), \
        mount.task_log(task)


# -- b: a mirror that answers 404 -------------------------------------------------

@pytest.mark.parametrize("missing_first", [False, True], ids=["second-404", "first-404"])
def test_r19_a_404_mirror_is_dropped_and_the_other_serves_the_file(mount, faultserver, missing_first):
    size = 8 * MiB
    good = faultserver.add("/good/b.bin", size=size, seed=192, throttle=4 * MiB)
    missing = faultserver.add("/gone/b.bin", status=404, status_times=None)
    urls = (missing, good) if missing_first else (good, missing)
    task = _add_line(mount, *urls, split=4)
    mount.wait_state(task, "completed")
    _assert_whole(mount, "b.bin", 192, size)
    assert faultserver.gets("/gone/b.bin"), "the 404 mirror was never asked"
    _assert_dropped(mount, task, missing, r"404")
    assert not _dropped_lines(mount, task, good), mount.task_log(task)
    assert mount.status(task)["url"] == urls[0], "url is the first URL, dropped or not"
    spans = [r.delivered for r in faultserver.gets("/good/b.bin") if r.delivered is not None]
    assert merge_spans(spans) == [(0, size)]


# -- c: mirrors that hold another file ---------------------------------------------

def test_r19_mirrors_with_another_total_or_etag_are_dropped(mount, faultserver):
    size = 16 * MiB
    good = faultserver.add("/good/c.bin", size=size, seed=193, throttle=4 * MiB)
    etag = faultserver.resource("/good/c.bin").current()[2]
    # Same validator, another length: Content-Range says another total.
    longer = faultserver.add("/longer/c.bin", size=size + MiB, seed=193, etag=etag, throttle=4 * MiB)
    # Same length, another strong ETag, and it serves the range anyway.
    other = faultserver.add("/other/c.bin", size=size, seed=193, etag='"another-file"',
                            ignore_if_range=True, throttle=4 * MiB)
    task = _add_line(mount, good, longer, other, split=4)
    mount.wait_state(task, "completed")
    _assert_whole(mount, "c.bin", 193, size)
    assert faultserver.gets("/longer/c.bin"), "the mirror with another total was never asked"
    assert faultserver.gets("/other/c.bin"), "the mirror with another ETag was never asked"
    _assert_dropped(mount, task, longer, r"total|size|length|range")
    _assert_dropped(mount, task, other, r"etag|validator")
    assert not _dropped_lines(mount, task, good), mount.task_log(task)


# -- d: no mirror left -------------------------------------------------------------

def test_r19_the_task_fails_when_every_mirror_is_gone(mount, faultserver):
    first = faultserver.add("/d1/d.bin", status=404, status_times=None)
    second = faultserver.add("/d2/d.bin", status=404, status_times=None)
    task = _add_line(mount, first, second)
    status = mount.wait_state(task, "failed")
    assert "404" in status["error"], status
    assert faultserver.gets("/d1/d.bin") and faultserver.gets("/d2/d.bin"), \
        "not every mirror was asked before the task failed"
    wait = mount.read(f"queue/{task}/wait")
    assert wait.startswith("failed: ") and "404" in wait, wait


# -- e: any URL of a task answers it (R13) ----------------------------------------

def test_r19_r13_adding_any_url_of_a_task_answers_its_id(mount, faultserver):
    port = faultserver.port
    first = faultserver.add("/e1/e.bin", size=64 * KiB, seed=195)
    faultserver.add("/e2/e.bin", size=64 * KiB, seed=195)
    second = f"http://user:secret@127.0.0.1:{port}/e2/e.bin"
    other = faultserver.add("/e3/other.bin", size=64 * KiB, seed=196)
    task = _add_line(mount, first, second)
    assert mount.read(f"queue/{task}/url").strip() == first, "url holds the first URL"
    log = mount.task_log(task)
    assert "mirrors: 1 other URL" in log, log
    assert f"http://user:***@127.0.0.1:{port}/e2/e.bin" in log, "the log names the mirror, password masked"
    assert "secret" not in log and "secret" not in mount.log()

    # The second URL alone, as `echo URL2 > queue/new` on a handle that reads the id back.
    assert mount.add(second + "\n") == [task]
    # Normalised (R13): scheme and host case, default port, fragment.
    assert mount.add(f"HTTP://user:secret@127.0.0.1:{port}/e2/e.bin#part\n") == [task]
    assert mount.add(first + "\n") == [task]
    # A line of mirrors one of which a task has answers that task.
    assert mount.add(_line(faultserver.url("/e4/new.bin"), second)) == [task]
    # Several tasks matched: the one of the line's earliest matching URL.
    lone = mount.add_one(other)
    assert mount.add(_line(faultserver.url("/e5/new.bin"), other, first)) == [lone]
    assert mount.add(_line(second, other)) == [task]
    assert mount.task_ids() == sorted([task, lone]), "an add that matched a task added one"

    mount.wait_state(task, "completed")
    assert mount.add(second + "\n") == [task], "a completed task matches too"
    assert mount.read(f"queue/{task}/url").strip() == first


# -- f: each URL of the line is checked (R11) -------------------------------------

@pytest.mark.parametrize("kind", ["two-tabs", "trailing-tab", "bad-scheme", "no-host", "control-char"])
def test_r19_r11_a_bad_line_of_mirrors_is_refused_whole(mount, faultserver, kind):
    good = faultserver.add("/f/good.bin", size=1000)
    mirror = faultserver.add("/f/mirror.bin", size=1000)
    bad = {
        "two-tabs": f"{good}\t\t{mirror}\n",
        "trailing-tab": f"{good}\t{mirror}\t\n",
        "bad-scheme": f"{good}\tfile:///etc/passwd\n",
        "no-host": f"{good}\thttp:///f/mirror.bin\n",
        "control-char": f"{good}\t{mirror}\x01\n",
    }[kind]
    reasons = {
        "two-tabs": r"empty URL field",
        "trailing-tab": r"empty URL field",
        "bad-scheme": r"URL 2 of 2: unsupported scheme",
        "no-host": r"URL 2 of 2: no host",
        "control-char": r"control character",
    }
    log_before = mount.log()
    # A good line before it is refused with it (R11).
    mount.assert_refused_write((f"{faultserver.url('/f/first.bin')}\n" + bad).encode())
    new_log = mount.log()[len(log_before):]
    assert re.search(r"line\D{0,3}2\b.*" + reasons[kind], new_log), \
        f"MOUNT/log should say why line 2 was refused: {new_log!r}"
    assert faultserver.requests() == [], "a URL of a refused write was fetched"
    assert mount.task_ids() == []


# -- transient errors are not a mirror's end (R19, R53) ----------------------------

@pytest.mark.parametrize("fault", ["503", "cut"])
def test_r19_r53_a_transient_error_keeps_the_mirror(mount, faultserver, fault):
    """A mirror that answers 503 or drops a connection once is not dropped:
    the task completes, whole, and the log names no dropped mirror."""
    size = 16 * MiB
    knobs = {"status": 503, "status_times": 1} if fault == "503" else {"cut_after": 256 * KiB, "cut_times": 1}
    first = faultserver.add("/ok/t.bin", size=size, seed=197, throttle=4 * MiB)
    second = faultserver.add("/flaky/t.bin", size=size, seed=197, throttle=4 * MiB, **knobs)
    task = _add_line(mount, first, second, split=4)
    mount.wait_state(task, "completed", timeout=40)
    _assert_whole(mount, "t.bin", 197, size)
    assert faultserver.gets("/flaky/t.bin"), "the flaky mirror was never asked"
    assert not _dropped_lines(mount, task, second), mount.task_log(task)


# -- issue 23: a dropped mirror's answers are never used ------------------------------

def test_r19_a_dropped_mirrors_later_answers_are_never_used(mount, faultserver):
    """A mirror holding a longer file (21 MiB for 20) is dropped at its first
    answer; its other connections' answers (a 206 of another total, or a
    200 of its whole file) must not make the task start over on it: the
    file is the first URL's 20 MiB, and the task never starts over."""
    size = 20 * MiB
    good = faultserver.add("/g20/x.bin", size=size, seed=231, throttle=4 * MiB)
    etag = faultserver.resource("/g20/x.bin").current()[2]
    longer = faultserver.add("/l21/x.bin", size=21 * MiB, seed=231, etag=etag, throttle=4 * MiB)
    task = _add_line(mount, good, longer, split=4)
    mount.wait_state(task, "completed", timeout=60)
    assert (mount.mp / "files" / "x.bin").stat().st_size == size, mount.task_log(task)
    _assert_whole(mount, "x.bin", 231, size)
    _assert_dropped(mount, task, longer, r"total|size|length|range")
    assert "starting over" not in mount.task_log(task), mount.task_log(task)
    whole = [r for r in faultserver.gets("/l21/x.bin") if r.status == 200]
    assert not whole, f"the dropped mirror was asked for its whole file: {_describe(whole)}"


# -- issue 23: the task fails only when no mirror is left --------------------------

def test_r19_late_failures_of_a_dropped_mirror_do_not_fail_the_task(mount, faultserver):
    """Eight tasks of a good URL and a 404 mirror, split 8: the 404 mirror is
    dropped at its first answer, and its other connections' 404s (answered
    later, when the good URL may have sent every byte) do not fail the
    task: every one completes."""
    size = 5 * MiB
    tasks = {}
    for n in range(8):
        good = faultserver.add(f"/r{n}/f{n}.bin", size=size, seed=240 + n)
        missing = faultserver.add(f"/gone{n}/f{n}.bin", status=404, status_times=None,
                                  delays=[0] + [0.5] * 8)
        tasks[n] = (_add_line(mount, good, missing, split=8), missing)
    for n, (task, missing) in tasks.items():
        status = mount.wait_state(task, ("completed", "failed"), timeout=60)
        assert status["state"] == "completed", f"task {task}: {status['error']}\n{mount.task_log(task)}"
        _assert_whole(mount, f"f{n}.bin", 240 + n, size)
        _assert_dropped(mount, task, missing, r"404")


# -- issue 23: a transient failure of the first URL fails over (R19, R53) -------------

@pytest.mark.parametrize("first_kind", ["refused", "503"])
def test_r19_r53_a_failing_first_url_fails_over_to_a_mirror(make_mount, faultserver, first_kind):
    """The first URL refuses connections (or always answers 503): the task
    does not fail with its error after --max-tries; the first URL rests
    (its own back-off) while the healthy mirror is asked and serves the
    file. (`MirrorSet`'s unit tests hold the rest: --max-tries failures in
    a row drop a mirror, the last one's failure is the task's.)"""
    mount = make_mount("--max-tries", "3")
    size = 10 * MiB
    good = faultserver.add("/ok/t10.bin", size=size, seed=251)
    if first_kind == "refused":
        from support.faultserver import unused_port
        first = f"http://127.0.0.1:{unused_port()}/t10.bin"
    else:
        first = faultserver.add("/busy/t10.bin", size=size, seed=251, status=503, status_times=None)
    task = _add_line(mount, first, good)
    status = mount.wait_state(task, ("completed", "failed"), timeout=90)
    assert status["state"] == "completed", f"{status['error']}\n{mount.task_log(task)}"
    _assert_whole(mount, "t10.bin", 251, size)
    assert faultserver.gets("/ok/t10.bin"), "the healthy mirror never got a request"
    if first_kind == "503":
        assert faultserver.gets("/busy/t10.bin"), "the first URL was never asked"
    assert mount.status(task)["url"] == first


# -- issue 23: a slow mirror does not hold the tail (endgame) ---------------------

def test_r18_r19_a_slow_mirror_does_not_hold_the_tail(mount, faultserver):
    """20 MiB over a 20 KB/s mirror and a 4 MB/s one: the slow mirror's last
    segment is handed to the fast one (the endgame) instead of taking
    minutes at 20 KB/s; the task log counts what was handed over and what
    was thrown away."""
    size = 20 * MiB
    fast = faultserver.add("/fast/s.bin", size=size, seed=261, throttle=4 * 1000 * 1000)
    slow = faultserver.add("/slow/s.bin", size=size, seed=261, throttle=20 * 1000)
    task = _add_line(mount, fast, slow, split=4)
    # At 20 KB/s the slow mirror's smallest segment (1 MiB) alone takes 52 s.
    status = mount.wait_state(task, ("completed", "failed"), timeout=40)
    assert status["state"] == "completed", status
    _assert_whole(mount, "s.bin", 261, size)
    log = mount.task_log(task)
    assert re.search(r"endgame: .* handed .* thrown away", log), log
    slow_spans = [r.delivered for r in faultserver.gets("/slow/s.bin") if r.delivered is not None]
    assert slow_spans, "the slow mirror was never used"
