"""R4 (`add`, `status`, `status --watch`) and R5 (`--help` everywhere)."""

import difflib
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from support.cli import one_line_message, run_cli
from support.files import MiB
from support.mount import fusermount_unmount, mounted_in_table
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


def test_r4_add_aria2_input_file(mount, faultserver, downloadfs_bin, tmp_path):
    a = faultserver.add("/one.bin", size=1000)
    b = faultserver.add("/two.bin", size=2000)
    listing = tmp_path / "list.txt"
    listing.write_text(f"# two downloads\n{a}\n  out=first.bin\n\n{b}\n  out=second.bin\n")
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, "-i", listing], tmp_path)
    assert result.returncode == 0, result
    ids = [int(line) for line in result.stdout.split()]
    assert len(ids) == 2, result
    names = [mount.wait_state(task, "completed")["name"] for task in ids]
    assert names == ["first.bin", "second.bin"]


def test_r4_add_missing_input_file_adds_nothing(mount, faultserver, downloadfs_bin, tmp_path):
    url = faultserver.add("/never.bin", size=1000)
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, url, "-i", tmp_path / "nope.txt"],
                     tmp_path)
    assert result.returncode != 0, result
    assert one_line_message(result.stderr) and "nope.txt: No such file" in result.stderr, result.stderr
    assert mount.task_ids() == []


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
    # Not a terminal: plain lines, nothing cut, no escape codes, the totals last.
    assert "\x1b" not in result.stdout
    assert lines[-1].startswith("total:") and "2 tasks" in lines[-1], lines[-1]


def test_r4_client_commands_name_the_mount_when_there_are_two(make_mount, faultserver,
                                                             downloadfs_bin, tmp_path):
    first, second = make_mount(), make_mount()
    mine = first.add_one(faultserver.add("/first-only.bin", size=1000))
    first.wait_state(mine, "completed")
    # Without a mount named, each client command says how to name one...
    for command in (["status"], ["add", faultserver.add("/never.bin", size=10)]):
        result = run_cli([downloadfs_bin, *command], tmp_path)
        assert result.returncode != 0, result
        assert one_line_message(result.stderr) and "--mount DIR" in result.stderr, result.stderr
    assert first.task_ids() == [mine] and second.task_ids() == []
    # ...and the hint works as written, on every client command.
    shown = run_cli([downloadfs_bin, "status", "--mount", first.mp], tmp_path)
    assert shown.returncode == 0 and "first-only.bin" in shown.stdout, shown
    other = run_cli([downloadfs_bin, "status", "--mount", second.mp], tmp_path)
    assert other.returncode == 0 and "first-only.bin" not in other.stdout, other
    positional = run_cli([downloadfs_bin, "status", first.mp], tmp_path)
    assert positional.returncode == 0 and "first-only.bin" in positional.stdout, positional
    both = run_cli([downloadfs_bin, "status", first.mp, "--mount", second.mp], tmp_path)
    assert both.returncode != 0 and one_line_message(both.stderr), both
    gone = subprocess.run([str(downloadfs_bin), "unmount", "--mount", str(second.mp)],
                          capture_output=True, text=True, timeout=60)
    assert gone.returncode == 0, gone.stderr
    assert second.wait_exit() == 0, second.output()
    assert not os.path.ismount(second.mp) and os.path.ismount(first.mp)


@pytest.mark.parametrize("flag, value, words", [
    ("--split", "99", "--split 99: must be from 1 to 16"),
    ("--max-active", "0", "--max-active 0: must be at least 1"),
    ("--max-active", "5000", "--max-active 5000: must be at most 1000"),
    ("--speed-limit", "2Mb", "--speed-limit 2Mb: rate"),
])
def test_r1_a_flag_error_names_the_flag(make_mount, tmp_path, flag, value, words):
    """Issue 25: the flag form keeps naming the flag (the -o form: test_fstab.py)."""
    mount = make_mount(flag, value, start=False)
    mount.mp.mkdir(parents=True)
    result = mount.assert_mount_refused(tmp_path)
    assert words in result.stderr, result.stderr


@pytest.fixture
def tmux(tmp_path):
    """A private tmux server (own socket), killed by that socket afterwards."""
    socket = tmp_path / "tmux.sock"

    def run(*args, check=True):
        return subprocess.run(["tmux", "-S", str(socket), *args], capture_output=True,
                              text=True, timeout=10, check=check)

    yield run
    run("kill-server", check=False)


def _percent(screen, name):
    """The progress of the row naming `name` on a captured screen, or None."""
    for line in screen.splitlines():
        if name in line:
            match = re.search(r"(\d+(?:\.\d+)?)%", line)
            return float(match.group(1)) if match else None
    return None


def test_r4_status_watch_redraws(mount, faultserver, downloadfs_bin, tmux):
    task = mount.add_one(faultserver.add("/watch.bin", size=32 * MiB, throttle=2 * MiB))
    mount.wait_downloaded(task, 256 * 1024)
    # An 80-column terminal, as the issue asks the table to fit.
    tmux("new-session", "-d", "-s", "w", "-x", "80", "-y", "24",
         f"{downloadfs_bin} status {mount.mp} --watch")

    def screen():
        return tmux("capture-pane", "-p", "-t", "w").stdout

    first = wait_until(lambda: _percent(screen(), "watch.bin") is not None and screen(), 5,
                       "the first frame")
    # Each task is one row: bar, id and name on the same line; no row wraps.
    [row] = [line for line in first.splitlines() if "watch.bin" in line]
    assert BAR_RE.search(row) and re.search(rf"\]\s+{task}\s", row), row
    assert any(line.startswith("total:") for line in first.splitlines()), first
    assert all(len(line) <= 80 for line in first.splitlines())
    # The bars move: a later frame shows more progress.
    wait_until(lambda: _percent(screen(), "watch.bin") > _percent(first, "watch.bin"), 5,
               "the progress shown to grow")
    tmux("send-keys", "-t", "w", "C-c")
    wait_until(lambda: tmux("has-session", "-t", "w", check=False).returncode != 0, 3,
               "status --watch to exit on Ctrl-C")


def test_r4_status_cuts_long_names_to_the_terminal(mount, faultserver, downloadfs_bin, tmux):
    name = "a-very-long-file-name-that-cannot-fit-in-eighty-columns-with-the-bar-" + "x" * 40 + ".bin"
    task = mount.add_one(faultserver.add("/long.bin", size=1000), f"out={name}")
    mount.wait_state(task, "completed")
    tmux("new-session", "-d", "-s", "s", "-x", "80", "-y", "24",
         f"{downloadfs_bin} status {mount.mp}; sleep 30")
    screen = wait_until(lambda: (text := tmux("capture-pane", "-p", "-t", "s").stdout)
                        and "total:" in text and text, 5, "the table")
    [row] = [line for line in screen.splitlines() if "a-very-long" in line]
    assert row.endswith("…") and len(row) == 80, row
    assert name not in screen


def test_r4_status_watch_fits_a_small_terminal(make_mount, faultserver, downloadfs_bin, tmux):
    """60 columns by 10 rows and 13 tasks: every frame fits the window, the
    downloading task is the row kept first with its whole name, and one line
    says how many rows are not shown."""
    mount = make_mount("--max-active", "1")
    busy = mount.add_one(faultserver.add("/busy.bin", size=64 * MiB, throttle=1 * MiB), "out=the-busy-one.bin")
    mount.wait_state(busy, "downloading")
    for index in range(12):
        mount.add_one(faultserver.add(f"/q{index}.bin", size=1000), f"out=queued-task-{index:02d}.bin")
    tmux("new-session", "-d", "-s", "small", "-x", "60", "-y", "10",
         f"{downloadfs_bin} status {mount.mp} --watch")

    def frame():
        text = tmux("capture-pane", "-p", "-t", "small").stdout
        return text if "total:" in text and "not shown" in text else None

    screen = wait_until(frame, 5, "a frame of the small window")
    lines = screen.rstrip("\n").splitlines()
    assert len(lines) <= 9 and lines[0].lstrip().startswith("ID"), screen
    assert all(len(line) <= 60 for line in lines), screen
    [row] = [line for line in lines if re.match(rf"\s*{busy}\s+downloading\b", line)]
    assert row.endswith("the-busy-one.bin"), row
    [more] = [line for line in lines if "not shown" in line]
    shown = sum(1 for line in lines if "queued-task-" in line)
    assert re.search(rf"\b{12 - shown} more tasks not shown", more), screen
    assert any(line.startswith("total: 13 tasks") for line in lines), screen
    tmux("send-keys", "-t", "small", "C-c")


HELP_DIR = Path(__file__).parent / "help"
COMMANDS = [[], ["mount"], ["unmount"], ["add"], ["status"], ["wait"], ["ctl"], ["rpc"]]
COMMAND_IDS = ["downloadfs", "mount", "unmount", "add", "status", "wait", "ctl", "rpc"]


@pytest.mark.parametrize("command", COMMANDS, ids=COMMAND_IDS)
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
        for sub in ("mount", "unmount", "add", "status", "wait", "ctl", "rpc"):
            assert sub in text


@pytest.mark.parametrize("command", COMMANDS, ids=COMMAND_IDS)
def test_r5_help_text_is_the_reviewed_one(downloadfs_bin, tmp_path, command):
    """The help is part of the interface: a change to it shows up here, to be
    reviewed and copied into tests/integration/help/ on purpose."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    result = run_cli([downloadfs_bin, *command, "--help"], tmp_path, env=env)
    assert result.returncode == 0, result
    name = (command or ["downloadfs"])[0]
    expected = (HELP_DIR / f"{name}.txt").read_text()
    assert result.stdout == expected, (
        f"`downloadfs {' '.join(command)} --help` differs from help/{name}.txt:\n"
        + "".join(difflib.unified_diff(expected.splitlines(True), result.stdout.splitlines(True),
                                       "expected", "actual")))


@pytest.mark.parametrize("command", COMMANDS[1:], ids=COMMAND_IDS[1:])
def test_r5_help_subcommand_is_the_help_not_a_mount(downloadfs_bin, tmp_path, command):
    """`downloadfs help add` (the top-level help's own advice) prints the
    command's help, even where `add` names a directory: never read as the
    mount(8) form `downloadfs STATE MNT` (R8)."""
    cwd = tmp_path / "cwd"
    (cwd / command[0]).mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    try:
        result = subprocess.run([str(downloadfs_bin), "help", *command], cwd=cwd, env=env, capture_output=True,
                                text=True, timeout=30, stdin=subprocess.DEVNULL)
    finally:
        # A build that mounted there anyway is unmounted, its daemon ends with it.
        if mounted_in_table(cwd / command[0]):
            fusermount_unmount(cwd / command[0])
    assert result.returncode == 0, result
    expected = (HELP_DIR / f"{command[0]}.txt").read_text()
    assert result.stdout.splitlines()[0] == expected.splitlines()[0], result.stdout
    assert sorted(p.name for p in cwd.iterdir()) == [command[0]], "it made or mounted something"
    with open("/proc/mounts") as mounts:
        assert str(tmp_path) not in mounts.read()


@pytest.mark.parametrize("argument, words", [
    ("", "is empty"),
    (" ", "is blank"),
    ("#comment", "is a comment, not a URL"),
    ("URL\n  out=zz.bin", "holds a line break"),
    ("  out=zz.bin", "option line"),
], ids=["empty", "blank", "comment", "newline", "leading_blank"])
def test_r4_add_refuses_an_argument_that_is_not_one_url(mount, faultserver, downloadfs_bin, tmp_path, argument, words):
    """Each URL argument is one URL line: one that would add nothing (and
    print no id) or bring lines of its own is refused before anything is
    written, as a usage error."""
    url = faultserver.add("/arg.bin", size=1000)
    result = run_cli([downloadfs_bin, "add", "--mount", mount.mp, url, argument.replace("URL", url)], tmp_path)
    assert result.returncode == 64, result
    assert result.stdout == "" and words in result.stderr, result
    assert mount.task_ids() == [], "nothing written, not even the good URL"
