"""R53: transient errors are retried with back-off; permanent ones fail at once."""

import re
import time

import pytest

from support.faultserver import unused_port
from support.files import KiB, MiB, sha256_file, sha256_of
from support.waiting import wait_until

RETRY_RE = re.compile(r"retry \d+ in \d+")


def _trace(mount, task, timeout):
    """(state, error) pairs seen until the task ends."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = mount.status(task)
        pair = (status["state"], status["error"])
        if not seen or seen[-1] != pair:
            seen.append(pair)
        if status["state"] in ("completed", "failed"):
            return seen
        time.sleep(0.02)
    raise AssertionError(f"task {task} did not end: {seen}")


def test_r53_503_retry_after_honoured(mount, faultserver):
    url = faultserver.add("/busy.bin", size=100 * KiB, status=503, retry_after=2)
    task = mount.add_one(url)
    seen = _trace(mount, task, 30)
    assert seen[-1][0] == "completed", seen
    retrying = [error for state, error in seen if state == "retrying"]
    assert retrying and any("503" in error for error in retrying), seen
    first, second = faultserver.gets("/busy.bin")[:2]
    assert second.started - first.started >= 1.9, "Retry-After: 2 was not honoured"


@pytest.mark.parametrize("how", ["unmount", "kill9"])
def test_r50_r53_retry_after_is_waited_out_across_a_remount(mount, faultserver, how):
    url = faultserver.add("/later.bin", size=100 * KiB, status=429, retry_after=6)
    task = mount.add_one(url)
    mount.wait_state(task, "retrying")
    if how == "unmount":
        assert mount.unmount() == 0
    else:
        mount.kill9()
    mount.remount()
    assert mount.status(task)["state"] == "retrying", "its back-off goes on"
    mount.wait_state(task, "completed", timeout=30)
    first, second = faultserver.gets("/later.bin")[:2]
    assert second.started - first.started >= 5.5, "Retry-After: 6 was not waited out after the remount"


def test_r53_retrying_error_says_retry_n_in(mount, faultserver):
    url = faultserver.add("/busy.bin", size=1000, status=503, status_times=2, retry_after=3)
    task = mount.add_one(url)
    seen = _trace(mount, task, 30)
    assert seen[-1][0] == "completed", seen
    assert any(state == "retrying" and RETRY_RE.search(error) for state, error in seen), seen


@pytest.mark.parametrize("code", [408, 429, 500, 502, 503, 504])
def test_r53_transient_http_status_retried(mount, faultserver, code):
    task = mount.add_one(faultserver.add("/t.bin", size=1000, status=code))
    mount.wait_state(task, "completed", timeout=20)
    assert [g.status for g in faultserver.gets("/t.bin")] == [code, 200]


def test_r53_cut_connection_then_success(mount, faultserver):
    size = 2 * MiB
    cut = 256 * KiB
    task = mount.add_one(faultserver.add("/cut.bin", size=size, seed=53, cut_after=cut,
                                         cut_times=3))
    mount.wait_state(task, "completed", timeout=40)
    gets = faultserver.gets("/cut.bin")
    assert len(gets) == 4, [g.range for g in gets]
    assert all(g.range_start and g.range_start > 0 for g in gets[1:]), [g.range for g in gets]
    assert faultserver.bytes_sent("/cut.bin") <= size + 3 * cut
    assert sha256_file(mount.mp / "files" / "cut.bin") == sha256_of(53, size)


def test_r53_progress_resets_tries(make_mount, faultserver):
    # Every attempt receives data, so --max-tries 2 is never used up.
    mount = make_mount("--max-tries", "2")
    task = mount.add_one(faultserver.add("/cut.bin", size=2 * MiB, seed=5, cut_after=256 * KiB,
                                         cut_times=4))
    mount.wait_state(task, "completed", timeout=60)
    assert sha256_file(mount.mp / "files" / "cut.bin") == sha256_of(5, 2 * MiB)


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_r53_stall_detected(mount, faultserver):
    size = MiB
    url = faultserver.add("/stall.bin", size=size, seed=54, stall_after=256 * KiB,
                          stall_seconds=90)
    task = mount.add_one(url)
    wait_until(lambda: faultserver.gets("/stall.bin"), 10, "the first request")
    began = time.monotonic()
    mount.wait_state(task, "retrying", timeout=60)
    waited = time.monotonic() - began
    assert 25 <= waited <= 50, f"stall noticed after {waited:.1f}s (want about 30 s)"
    mount.wait_state(task, "completed", timeout=70)
    gets = faultserver.gets("/stall.bin")
    assert gets[1].range_start and gets[1].range_start > 0
    assert sha256_file(mount.mp / "files" / "stall.bin") == sha256_of(54, size)


def test_r53_404_fails_at_once(mount, faultserver):
    task = mount.add_one(faultserver.add("/missing.bin", status=404, status_times=None))
    started = time.monotonic()
    status = mount.wait_state(task, "failed", timeout=10)
    assert time.monotonic() - started < 3
    assert "404" in status["error"]
    assert status["attempts"] == "1"
    assert len(faultserver.gets("/missing.bin")) == 1


@pytest.mark.parametrize("code", [400, 403, 410])
def test_r53_other_4xx_fail_at_once(mount, faultserver, code):
    task = mount.add_one(faultserver.add("/no.bin", status=code, status_times=None))
    status = mount.wait_state(task, "failed", timeout=10)
    assert str(code) in status["error"]
    assert len(faultserver.gets("/no.bin")) == 1


def test_r53_max_tries_refused_connection(make_mount):
    mount = make_mount("--max-tries", "3")
    task = mount.add_one(f"http://127.0.0.1:{unused_port()}/nothing.bin")
    seen = _trace(mount, task, 30)
    assert seen[-1][0] == "failed", seen
    assert "retrying" in [state for state, _ in seen], seen
    final = mount.status(task)
    assert final["attempts"] == "3", final
    assert re.search(r"refused", final["error"], re.IGNORECASE), final["error"]


def test_r53_max_tries_server_error(make_mount, faultserver):
    mount = make_mount("--max-tries", "2")
    task = mount.add_one(faultserver.add("/down.bin", size=1000, status=500, status_times=None))
    status = mount.wait_state(task, "failed", timeout=20)
    assert "500" in status["error"]
    assert len(faultserver.gets("/down.bin")) == 2


def test_r53_unusable_206_backs_off_and_fails_after_max_tries(make_mount, faultserver):
    """A plain GET answered 206 without Content-Range can never be used: each
    start-over is an attempt without data, backs off, and max-tries ends it."""
    mount = make_mount("--max-tries", "3")
    task = mount.add_one(faultserver.add("/odd206.bin", size=64 * KiB, status=206, status_times=None))
    started = time.monotonic()
    seen = _trace(mount, task, 30)
    elapsed = time.monotonic() - started
    assert seen[-1][0] == "failed", seen
    assert "retrying" in [state for state, _ in seen], seen
    gets = faultserver.gets("/odd206.bin")
    assert len(gets) == 3, f"{len(gets)} requests for --max-tries 3"
    # Back-off between tries: ~1 s then ~2 s (jitter 0.75-1.25x).
    assert elapsed >= 2.0, f"three tries in {elapsed:.2f}s: no back-off"
    assert "Content-Range" in seen[-1][1], seen[-1][1]
    # It stays failed: no more requests, no more log lines.
    lines = len(mount.task_log(task).splitlines())
    time.sleep(1.5)  # nothing may happen in this window; there is no event to poll for
    assert len(faultserver.gets("/odd206.bin")) == 3
    assert len(mount.task_log(task).splitlines()) == lines
