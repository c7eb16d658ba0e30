"""R52: how a resumed request is made and what each answer leads to.

Each test cuts the first response after 1 MiB (a transient error), so the
daemon's retry is a resume whose request and handling we can check.
"""

import re

import pytest

from support.faultserver import DEFAULT_LAST_MODIFIED
from support.files import MiB, sha256_file, sha256_of

SIZE = 4 * MiB
CUT = MiB
START_OVER_RE = re.compile(r"start\w* over|from (zero|0|scratch|the (start|beginning))|restart",
                           re.IGNORECASE)


def _download(mount, faultserver, path="/r.bin", seed=52, **knobs):
    knobs.setdefault("cut_after", CUT)
    task = mount.add_one(faultserver.add(path, size=SIZE, seed=seed, **knobs))
    mount.wait_state(task, "completed", timeout=30)
    return task, faultserver.gets(path)


def _restarted_from_zero(gets):
    return any(g.range_start in (None, 0) for g in gets[1:])


def test_r52_206_appends(mount, faultserver):
    task, gets = _download(mount, faultserver, etag='"strong-1"')
    resumed = gets[1]
    assert resumed.range == f"bytes={resumed.range_start}-", resumed.range
    assert 0 < resumed.range_start <= CUT
    assert resumed.status == 206
    assert not _restarted_from_zero(gets)
    assert faultserver.bytes_sent("/r.bin") <= SIZE + CUT
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(52, SIZE)


@pytest.mark.parametrize("validators,expected", [
    ({"etag": '"strong-1"'}, '"strong-1"'),
    ({"etag": 'W/"weak-1"'}, DEFAULT_LAST_MODIFIED),
    ({"no_etag": True}, DEFAULT_LAST_MODIFIED),
], ids=["strong-etag", "weak-etag-uses-last-modified", "last-modified-only"])
def test_r52_if_range_validator(mount, faultserver, validators, expected):
    _, gets = _download(mount, faultserver, **validators)
    assert gets[1].range_start, gets[1].range
    assert gets[1].if_range == expected


def test_r52_200_starts_over_and_logs(mount, faultserver):
    task, gets = _download(mount, faultserver,
                           script=[{"cut_after": CUT}, {"ignore_range": True}])
    assert gets[1].range_start and gets[1].status == 200
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(52, SIZE)
    log = mount.task_log(task)
    assert START_OVER_RE.search(log), f"task log does not say it started over:\n{log}"


def test_r52_changed_file_starts_over(mount, faultserver):
    task, gets = _download(mount, faultserver, change_after_requests=1)
    assert gets[1].if_range and gets[1].status == 200  # If-Range no longer matches
    seed, size, _, _ = faultserver.resource("/r.bin").current()
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(seed, size)
    assert START_OVER_RE.search(mount.task_log(task)), mount.task_log(task)


def test_r52_416_at_known_total_is_done(mount, faultserver):
    # Second response: the rest of the file, but it promises one byte more and
    # then closes - the daemon holds every byte and must not fetch them again.
    _, gets = _download(mount, faultserver, script=[{"cut_after": 2 * MiB}, {"extra_length": 1}])
    assert not _restarted_from_zero(gets), [g.range for g in gets]
    later = gets[2:]
    assert all(g.status == 416 and g.range_start == SIZE for g in later), \
        [(g.range, g.status) for g in later]
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(52, SIZE)


def test_r52_changed_total_starts_over(mount, faultserver):
    _, gets = _download(mount, faultserver, change_after_requests=1, changed_size=3 * MiB,
                        changed_keep_validators=True)
    assert gets[1].status == 206  # validators match, but the total is now 3 MiB
    assert _restarted_from_zero(gets[1:]), [g.range for g in gets]
    seed, size, _, _ = faultserver.resource("/r.bin").current()
    assert size == 3 * MiB
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(seed, size)


def test_r52_misplaced_content_range_starts_over(mount, faultserver):
    _, gets = _download(mount, faultserver,
                        script=[{"cut_after": CUT}, {"content_range_shift": 4096}])
    assert gets[1].status == 206
    assert _restarted_from_zero(gets[1:]), [g.range for g in gets]
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(52, SIZE)


def test_r52_no_validator_resumes_by_size_and_logs(mount, faultserver):
    task, gets = _download(mount, faultserver, no_validators=True)
    assert gets[1].range_start and 0 < gets[1].range_start <= CUT, gets[1].range
    assert gets[1].if_range is None
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(52, SIZE)
    log = mount.task_log(task)
    assert re.search(r"validator|by size", log, re.IGNORECASE), \
        f"task log does not say it resumed by size:\n{log}"


@pytest.mark.parametrize("delta", [-SIZE, -MiB], ids=["empty", "short"])
def test_r52_r53_a_206_body_shorter_than_its_content_range_is_retried_with_back_off(mount, faultserver, delta):
    # The resume's 206 names the whole asked range but ends early: a body closed before it was complete.
    task, gets = _download(mount, faultserver, range_body_delta=delta, range_body_delta_times=2)
    assert [g.status for g in gets[:3]] == [200, 206, 206], [(g.status, g.range) for g in gets]
    assert len(gets) <= 6, f"{len(gets)} requests: no loop"
    assert gets[2].started - gets[1].started >= 0.5, "a back-off before asking again (R53)"
    assert sha256_file(mount.mp / "files" / "r.bin") == sha256_of(52, SIZE)


def test_r52_a_206_body_longer_than_its_content_range_is_cut_at_its_end(mount, faultserver):
    task, gets = _download(mount, faultserver, range_body_delta=100 * 1024)
    assert gets[1].status == 206 and gets[1].sent == SIZE - gets[1].range_start + 100 * 1024
    path = mount.mp / "files" / "r.bin"
    assert path.stat().st_size == SIZE
    assert sha256_file(path) == sha256_of(52, SIZE), "the junk past the range is not the file's"
    assert (mount.state / "files" / "r.bin").stat().st_size == SIZE
