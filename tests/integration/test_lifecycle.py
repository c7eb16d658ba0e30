"""R15–R17: task states, scheduling, and file names."""

import os
import time

import pytest

from support.files import KiB, MiB, content, sha256_file, sha256_of
from support.status import Table
from support.waiting import stays_true


def _state_trace(mount, task, until=("completed", "failed"), timeout=30):
    """Distinct consecutive states of `task`, polled until one in `until`."""
    trace = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = mount.status(task)["state"]
        if not trace or trace[-1] != state:
            trace.append(state)
        if state in until:
            return trace
        time.sleep(0.01)
    raise AssertionError(f"task {task} did not finish: {trace}")


def test_r15_states_seen(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    first = mount.add_one(faultserver.add("/first.bin", size=2 * MiB, throttle=2 * MiB))
    second = mount.add_one(faultserver.add("/second.bin", size=MiB, throttle=MiB))
    mount.wait_state(first, "downloading")
    # `verifying` (its flush and its move into files/, R51) lasts a few
    # milliseconds: a poll every 10 ms may miss it.
    assert _state_trace(mount, second) in (["queued", "downloading", "completed"],
                                           ["queued", "downloading", "verifying", "completed"])


def test_r15_completed_survives_kill9(mount, faultserver):
    task = mount.add_one(faultserver.add("/k.bin", size=300 * KiB, seed=3))
    mount.wait_state(task, "completed")
    mount.kill9()
    mount.remount()
    assert mount.status(task)["state"] == "completed"
    assert sha256_file(mount.mp / "files" / "k.bin") == sha256_of(3, 300 * KiB)


def test_r16_max_active(make_mount, faultserver):
    mount = make_mount("--max-active", "2")
    sizes = [MiB, 4 * MiB, MiB, MiB]  # the first ends early, the second holds its slot
    tasks = [mount.add_one(faultserver.add(f"/t{i}.bin", size=size, throttle=2 * MiB))
             for i, size in enumerate(sizes)]
    most = 0
    deadline = time.monotonic() + 30
    while True:
        table = Table(mount.root_status())
        states = {row["id"]: row["state"] for row in table.rows()}
        active = [t for t in tasks if states[t] == "downloading"]
        assert len(active) <= 2, f"more than max-active downloading: {table.text}"
        most = max(most, len(active))
        # First added, first started: a later task never leaves the queue first.
        for earlier, later in zip(tasks, tasks[1:]):
            if states[later] != "queued":
                assert states[earlier] != "queued", f"task {later} started before {earlier}"
        if all(states[t] == "completed" for t in tasks):
            break
        assert time.monotonic() < deadline, table.text
        time.sleep(0.02)
    assert most == 2, "two slots were never used at once"


def test_r16_paused_not_started(make_mount, faultserver):
    mount = make_mount("--max-active", "1")
    first = mount.add_one(faultserver.add("/first.bin", size=2 * MiB, throttle=2 * MiB))
    second = mount.add_one(faultserver.add("/second.bin", size=1000))
    mount.wait_state(first, "downloading")
    mount.ctl(second, "pause")
    mount.wait_state(second, "paused", timeout=5)
    mount.wait_state(first, "completed")
    stays_true(lambda: mount.status(second)["state"] == "paused", 1.5, "task stays paused")
    assert faultserver.gets("/second.bin") == []


# -- R17: names -------------------------------------------------------------------

def test_r17_name_from_out(mount, faultserver):
    url = faultserver.add("/ignored.bin", size=1000, content_disposition='attachment; filename="cd.bin"')
    task = mount.add_one(url, "out=chosen name.txt")
    assert mount.wait_state(task, "completed")["name"] == "chosen name.txt"
    assert mount.files() == ["chosen name.txt"]


def test_r17_name_from_content_disposition(mount, faultserver):
    star = faultserver.add("/star/ignored.bin", size=1000, content_disposition=(
        "attachment; filename=\"fallback.bin\"; filename*=UTF-8''%E2%82%AC%20rates.bin"))
    plain = faultserver.add("/plain/ignored2.bin", size=1000,
                            content_disposition='attachment; filename="plain.bin"')
    star_task, plain_task = mount.add_one(star), mount.add_one(plain)
    assert mount.wait_state(star_task, "completed")["name"] == "\u20ac rates.bin"
    assert mount.wait_state(plain_task, "completed")["name"] == "plain.bin"
    assert mount.files() == ["plain.bin", "\u20ac rates.bin"]


def test_r17_name_from_url_percent_decoded(mount, faultserver):
    url = faultserver.add("/dir/my%20file%2Bv2.bin", size=1000)
    task = mount.add_one(url)
    assert mount.wait_state(task, "completed")["name"] == "my file+v2.bin"
    assert mount.files() == ["my file+v2.bin"]


def test_r17_name_from_final_url_after_redirect(mount, faultserver):
    final = faultserver.add("/final/final-name.bin", size=1000)
    start = faultserver.add("/start.bin", redirect_to=final)
    task = mount.add_one(start)
    assert mount.wait_state(task, "completed")["name"] == "final-name.bin"


def test_r17_name_fallback_download(mount, faultserver):
    task = mount.add_one(faultserver.add("/", size=1000))
    assert mount.wait_state(task, "completed")["name"] == "download"
    assert mount.files() == ["download"]


def test_r17_collision_suffix(mount, faultserver):
    urls = [faultserver.add(f"/{d}/a.bin", size=1000 + i, seed=20 + i)
            for i, d in enumerate("abc")]
    tasks = [mount.add_one(url) for url in urls]
    names = [mount.wait_state(task, "completed")["name"] for task in tasks]
    assert sorted(names) == ["a (1).bin", "a (2).bin", "a.bin"]
    assert mount.files() == ["a (1).bin", "a (2).bin", "a.bin"]
    for i, name in enumerate(names):
        assert (mount.mp / "files" / name).read_bytes() == content(20 + i, 1000 + i)


def test_r17_collision_with_existing_file(mount, faultserver):
    first = mount.add_one(faultserver.add("/x/same.bin", size=1000, seed=1))
    mount.wait_state(first, "completed")
    second = mount.add_one(faultserver.add("/y/same.bin", size=2000, seed=2))
    assert mount.wait_state(second, "completed")["name"] == "same (1).bin"


SANITISED = {
    "leading-dot": ("attachment; filename=\".hidden.bin\"",
                    lambda name: name == "hidden.bin"),
    "slash": ("attachment; filename*=UTF-8''x%2Fy.bin", lambda name: name == "x_y.bin"),
    "control": ("attachment; filename*=UTF-8''a%01b%1F.bin", lambda name: name == "ab.bin"),
    "long": ("attachment; filename=\"" + "n" * 300 + ".bin\"",
             lambda name: len(name.encode()) <= 255 and name.endswith(".bin")
             and name.startswith("nnnn")),
    "long-multibyte": ("attachment; filename*=UTF-8''" + "%C3%A9" * 200 + ".bin",
                       lambda name: len(name.encode()) <= 255 and name.endswith(".bin")
                       and name.startswith("\u00e9")),
}


@pytest.mark.parametrize("case", list(SANITISED))
def test_r17_name_sanitised(mount, faultserver, case):
    header, ok = SANITISED[case]
    task = mount.add_one(faultserver.add("/s.bin", size=1000, content_disposition=header))
    name = mount.wait_state(task, "completed")["name"]
    assert ok(name), repr(name)
    assert os.listdir(mount.mp / "files") == [name]
    assert (mount.state / "files" / name).is_file()
