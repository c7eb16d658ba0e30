"""R4 (`add`, `status`, `status --watch`) and R5 (`--help` everywhere)."""

import re
import subprocess
import time

import pytest

from support.cli import run_cli
from support.files import MiB
from support.waiting import wait_until

# A progress bar: a run of bar glyphs, or a bracketed field (empty at 0 %).
BAR_RE = re.compile(r"[█▉▊▋▌▍▎▏░▒▓#=━─■□▪▫●○>·]{5,}|\[[^\]]{5,}\]")


def test_r4_add_prints_ids(mount, faultserver, downloadfs_bin, tmp_path):
    a = faultserver.add("/a.bin", size=1000)
    b = faultserver.add("/b.bin", size=1000)
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, a, b], tmp_path)
    assert result.returncode == 0, result
    ids = [int(line) for line in result.stdout.split()]
    assert len(ids) == 2 and ids == sorted(set(ids))
    assert mount.task_ids() == ids
    assert {(mount.task_dir(t) / "url").read_text().strip() for t in ids} == {a, b}
    again = run_cli([downloadfs_bin, "add", "--mount", mount.mp, b], tmp_path)
    assert again.returncode == 0 and again.stdout.split() == [str(ids[1])], again


def test_r4_add_reads_stdin_dash(mount, faultserver, downloadfs_bin, tmp_path):
    url = faultserver.add("/stdin.bin", size=1000)
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, "-"], tmp_path,
                     stdin_data=f"{url}\n  out=from-stdin.bin\n")
    assert result.returncode == 0, result
    [task] = [int(line) for line in result.stdout.split()]
    assert mount.wait_state(task, "completed")["name"] == "from-stdin.bin"


def test_r4_add_rejected_url_fails(mount, downloadfs_bin, tmp_path):
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, "file:///etc/passwd"], tmp_path)
    assert result.returncode != 0
    assert result.stderr.strip(), "no message for a refused URL"
    assert mount.task_ids() == []


def test_r4_status_table(make_mount, faultserver, downloadfs_bin, tmp_path):
    mount = make_mount("--max-active", "1")
    done = mount.add_one(faultserver.add("/done.bin", size=1000))
    mount.wait_state(done, "completed")
    moving = mount.add_one(faultserver.add("/moving.bin", size=32 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(moving, MiB)
    result = run_cli([downloadfs_bin, "status", mount.mp], tmp_path)
    assert result.returncode == 0, result
    lines = result.stdout.splitlines()
    for task, name in ((done, "done.bin"), (moving, "moving.bin")):
        [line] = [line for line in lines if name in line]
        assert re.search(rf"(^|\s){task}\b", line), line
        assert BAR_RE.search(line), f"no progress bar: {line!r}"
    assert any("downloading" in line for line in lines)


@pytest.fixture
def tmux(tmp_path):
    """A private tmux server (own socket), killed by that socket afterwards."""
    socket = tmp_path / "tmux.sock"

    def run(*args, check=True):
        return subprocess.run(["tmux", "-S", str(socket), *args], capture_output=True,
                              text=True, timeout=10, check=check)

    yield run
    run("kill-server", check=False)


def test_r4_status_watch_redraws(mount, faultserver, downloadfs_bin, tmux):
    task = mount.add_one(faultserver.add("/watch.bin", size=32 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(task, 256 * 1024)
    tmux("new-session", "-d", "-s", "w", "-x", "160", "-y", "30",
         f"{downloadfs_bin} status {mount.mp} --watch")

    def screen():
        return tmux("capture-pane", "-p", "-t", "w").stdout

    first = wait_until(lambda: "watch.bin" in screen() and screen(), 5, "the first frame")
    time.sleep(2.2)  # two redraws at one per second
    second = screen()
    assert "watch.bin" in second
    assert second != first, "the table did not redraw"
    tmux("send-keys", "-t", "w", "C-c")
    wait_until(lambda: tmux("has-session", "-t", "w", check=False).returncode != 0, 3,
               "status --watch to exit on Ctrl-C")


@pytest.mark.parametrize("command", [[], ["mount"], ["unmount"], ["add"], ["status"]],
                         ids=["downloadfs", "mount", "unmount", "add", "status"])
def test_r5_help_with_example(downloadfs_bin, tmp_path, command):
    result = run_cli([downloadfs_bin, *command, "--help"], tmp_path)
    assert result.returncode == 0, result
    text = result.stdout + result.stderr
    assert re.search(r"example", text, re.IGNORECASE), f"no example in:\n{text}"
    usage = " ".join(["downloadfs", *command])
    example_lines = [line for line in text.splitlines()
                     if usage in line and not re.match(r"\s*usage", line, re.IGNORECASE)]
    assert example_lines, f"no example line running `{usage}`:\n{text}"
    if not command:
        for sub in ("mount", "unmount", "add", "status"):
            assert sub in text
