"""R5, R8: `scripts/install PREFIX` installs a binary that runs without a
Swift toolchain, a man page and bash, zsh and fish completions generated from
the command definitions, and a systemd user unit that mounts and unmounts.

The install runs once per module, with DOWNLOADFS_BIN so it installs the
binary under test instead of building one; the man page and completions
come from that binary, so it takes seconds.
"""

import errno
import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from support.files import MiB
from support.mount import expect_errno, write_command
from support.waiting import wait_until

pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]
COMPLETIONS = {
    "bash": "share/bash-completion/completions/downloadfs",
    "zsh": "share/zsh/site-functions/_downloadfs",
    "fish": "share/fish/vendor_completions.d/downloadfs.fish",
}
UNIT = "share/systemd/user/downloadfs@.service"
MAN_PAGE = "share/man/man1/downloadfs.1"
# How long the module's install took (one entry, set by the fixture).
INSTALL_SECONDS = []


@pytest.fixture(scope="module")
def prefix(tmp_path_factory, downloadfs_bin):
    prefix = tmp_path_factory.mktemp("prefix")
    env = dict(os.environ, DOWNLOADFS_BIN=str(downloadfs_bin))
    started = time.monotonic()
    result = subprocess.run(["bash", str(REPO / "scripts" / "install"), str(prefix)], env=env,
                            capture_output=True, text=True, timeout=880)
    assert result.returncode == 0, result.stdout + result.stderr
    INSTALL_SECONDS.append(time.monotonic() - started)
    assert f"under {prefix}" in result.stdout, result.stdout
    return prefix


def _run(args, timeout=30, **kwargs):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kwargs)


def test_r5_install_puts_every_file_under_the_prefix(prefix):
    binary = prefix / "bin" / "downloadfs"
    assert os.access(binary, os.X_OK)
    for relative in ["share/man/man1/downloadfs.1", UNIT, *COMPLETIONS.values()]:
        path = prefix / relative
        assert path.is_file() and path.stat().st_size > 0, relative
        assert path.stat().st_mode & 0o777 == 0o644, relative


def test_r5_version(prefix):
    result = _run([prefix / "bin" / "downloadfs", "--version"])
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"downloadfs \d+\.\d+\.\d+\n", result.stdout), result.stdout


def test_r5_the_binary_carries_the_swift_runtime(prefix):
    """Linked with --static-swift-stdlib: it runs where no toolchain is."""
    binary = prefix / "bin" / "downloadfs"
    libraries = _run(["ldd", binary]).stdout
    assert "libswift" not in libraries and "libFoundation" not in libraries, libraries
    env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
    assert _run([binary, "--help"], env=env).returncode == 0


def test_r5_install_of_a_built_binary_takes_seconds(prefix):
    """The man page and completions come from the binary, not from a second
    build of the package (which took 2.5 minutes)."""
    assert INSTALL_SECONDS and INSTALL_SECONDS[0] < 30, INSTALL_SECONDS


def _man(page, *options, env=None):
    """`man -l PAGE` at 80 columns, plain text; (stdout, stderr)."""
    env = dict(os.environ if env is None else env, MANWIDTH="80", PAGER="cat", LANG="C.UTF-8")
    result = _run(["man", *options, "-l", page], env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr


def test_r5_man_page_is_generated_and_found(prefix):
    env = dict(os.environ, MANPATH=str(prefix / "share" / "man"), MANWIDTH="100", PAGER="cat")
    where = _run(["man", "-w", "downloadfs"], env=env)
    assert where.returncode == 0 and where.stdout.strip() == str(prefix / MAN_PAGE), where
    page = _run(["man", "-P", "cat", "downloadfs"], env=env)
    assert page.returncode == 0, page.stderr
    text = page.stdout
    # The page is the binary's own, dated by the last commit.
    epoch = _run(["git", "-C", REPO, "log", "-1", "--format=%ct"]).stdout.strip()
    generated = _run([prefix / "bin" / "downloadfs", "--generate-manual"],
                     env=dict(os.environ, SOURCE_DATE_EPOCH=epoch))
    assert generated.returncode == 0 and generated.stdout == (prefix / MAN_PAGE).read_text(), generated.stderr
    for words in ("DOWNLOADFS(1)", "mount", "--max-active", "--ca-certificate", "unmount", "status",
                  "wait", "ctl", "--wait", "completed", "FILESYSTEM", "EXIT STATUS"):
        assert words in text, words
    assert "given-as-mount-option" not in text, "a hidden option shows in the manual"
    assert "generate-manual" not in text, "a hidden flag shows in the manual"


def test_r5_man_page_renders_without_warnings(prefix, tmp_path):
    """`man --warnings` said "Empty input line" for each blank line of
    argument-parser's page; ours gives no warning at all, nor does mandoc's
    lint where mandoc is installed."""
    _, warnings = _man(prefix / MAN_PAGE, "--warnings")
    assert warnings == "", warnings
    assert "\n\n" not in (prefix / MAN_PAGE).read_text(), "an empty line in the page"
    if shutil.which("mandoc"):
        lint = _run(["mandoc", "-T", "lint", "-W", "warning", prefix / MAN_PAGE])
        assert lint.stdout + lint.stderr == "", lint.stdout + lint.stderr


def _section(text, title):
    """The lines of the page's section `title` (up to the next heading)."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if re.match(r"[A-Z]", lines[i])), len(lines))
    return lines[start:end]


def _tags(lines):
    """The words a tagged list's items start with (its items sit 5 columns in)."""
    return {match.group(1) for line in lines if (match := re.match(r" {5}(\S+)", line))}


def _logged_list(mount, marker, opening):
    """The words of the newest MOUNT/log line holding `marker`, from `opening` to the closing bracket."""
    lines = [line for line in mount.log().splitlines() if marker in line]
    assert lines, f"no line with {marker!r} in the log:\n{mount.log()}"
    line = lines[-1]
    listed = line[line.index(opening) + len(opening):line.rindex(")")]
    return [word.strip() for word in re.split(r", | or ", listed)]


def test_r5_man_page_documents_the_mount(prefix, make_mount, faultserver):
    """Issue 25: every entry of a real mount, every extended attribute it
    answers, every key of a task's status, every ctl command (the settings
    `cat ctl` shows and the forms a refusal lists) and every input option
    (the ones an unknown option's refusal lists) is in the installed page."""
    text, _ = _man(prefix / MAN_PAGE)
    mount = make_mount()
    task = mount.add_one(faultserver.add("/m.bin", size=4 * MiB, throttle=MiB), "out=m.bin")

    layout = _tags(_section(text, "FILESYSTEM"))
    root = set(os.listdir(mount.mp)) | {"events"}  # events is found by name, not listed (R24)
    for name in root:
        assert (name + "/" if (mount.mp / name).is_dir() else name) in layout, name
    data = os.listdir(mount.task_dir(task))
    for name in set(data) | {"wait"}:  # wait is not listed (R22)
        entry = "queue/<id>/<name>" if name == "m.bin" else f"queue/<id>/{name}"
        assert entry in layout, name
    assert "queue/new" in layout and "queue/<id>/" in layout
    done = mount.add_one(faultserver.add("/done.bin", size=1024), "out=done.bin")
    mount.wait_state(done, "completed", timeout=30)
    listed = os.listxattr(mount.mp / "files" / "done.bin")
    assert "user.xdg.origin.url" in listed, listed
    by_name = ["user.downloadfs.status", "user.downloadfs.mirrors", "user.downloadfs.ranges", "user.downloadfs.report",
               "user.downloadfs.place"]
    os.getxattr(mount.task_dir(done), "user.downloadfs.report")  # answered, so it is one to document
    for name in listed + by_name:
        assert name in layout, name

    keys = [line.split(":", 1)[0] for line in (mount.task_dir(task) / "status").read_text().splitlines()]
    assert len(keys) >= 14, keys
    status_tags = _tags(_section(text, "STATUS KEYS"))
    for key in keys:
        assert key + ":" in status_tags, key

    control = _section(text, "CONTROL COMMANDS")
    split = next(i for i, line in enumerate(control) if line.strip() == "ctl")
    task_words, mount_words = _tags(control[:split]), _tags(control[split:])
    shown_task = [line.split()[0] for line in (mount.task_dir(task) / "ctl").read_text().splitlines()]
    shown_mount = [line.split()[0] for line in (mount.mp / "ctl").read_text().splitlines()]
    expect_errno(errno.EINVAL, write_command, mount.task_dir(task) / "ctl", "no-such-command")
    listed_task = [form.split()[0] for form in _logged_list(mount, f"queue/{task}/ctl: refused", "(use ")]
    expect_errno(errno.EINVAL, write_command, mount.mp / "ctl", "no-such-command")
    listed_mount = [form.split()[0] for form in _logged_list(mount, " ctl: refused", "(use ")]
    assert {"pause", "forget", "limit"} <= set(listed_task) and {"max-active", "pause-all"} <= set(listed_mount)
    for word in shown_task + listed_task:
        assert word in task_words, word
    for word in shown_mount + listed_mount:
        assert word in mount_words, word

    mount.assert_refused_write(b"http://127.0.0.1:9/x\n  no-such-option=1\n")
    options = _logged_list(mount, 'unknown option "no-such-option"', "(known: ")
    assert {"out", "header", "split", "load-cookies"} <= set(options), options
    option_tags = {tag.split("=", 1)[0] for tag in _tags(_section(text, "INPUT OPTIONS")) if "=" in tag}
    for option in options:
        assert option in option_tags, option
    assert "TABs" in " ".join(_section(text, "INPUT OPTIONS")), "mirrors on one line"

    exits = _section(text, "EXIT STATUS")
    for status in ("0", "1", "3", "64"):
        assert any(re.match(rf" {{5}}{status}\s", line) for line in exits), status


def _bash_complete(prefix, words):
    """What bash completion offers for the last of `words`."""
    script = prefix / COMPLETIONS["bash"]
    line = " ".join(words)
    program = (f"source {shlex.quote(str(script))}\n"
               f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
               f"COMP_LINE={shlex.quote(line)}; COMP_POINT=${{#COMP_LINE}}\n"
               f"_downloadfs downloadfs {shlex.quote(words[-1])} {shlex.quote(words[-2])}\n"
               'printf "%s\\n" "${COMPREPLY[@]}"\n')
    result = _run(["bash", "--norc", "-c", program])
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_r5_bash_completes_commands_and_options(prefix):
    assert _bash_complete(prefix, ["downloadfs", "mo"]) == ["mount"]
    assert "--max-active" in _bash_complete(prefix, ["downloadfs", "mount", "/tmp", "--max-a"])
    assert "--ca-certificate" in _bash_complete(prefix, ["downloadfs", "mount", "/tmp", "--ca"])
    # R4's later commands come from the same definitions (issue 25).
    assert _bash_complete(prefix, ["downloadfs", "wa"]) == ["wait"]
    assert _bash_complete(prefix, ["downloadfs", "ct"]) == ["ctl"]
    assert "--wait" in _bash_complete(prefix, ["downloadfs", "add", "--wa"])
    assert "--mount" in _bash_complete(prefix, ["downloadfs", "ctl", "--mo"])


def test_r5_fish_completes_commands(prefix):
    script = prefix / COMPLETIONS["fish"]
    result = _run(["fish", "--no-config", "-c", f"source {shlex.quote(str(script))}; complete -C 'downloadfs mo'"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:1] == ["mount"], result.stdout


def test_r5_zsh_completion_is_a_compdef(prefix):
    script = prefix / COMPLETIONS["zsh"]
    assert script.read_text().startswith("#compdef downloadfs")
    result = _run(["zsh", "-n", script])
    assert result.returncode == 0, result.stderr


def test_r8_the_systemd_user_unit_verifies(prefix, tmp_path):
    """`systemd-analyze verify` checks the unit's syntax, that its programs
    exist and that its Documentation= man page is found — by its path, so
    also where MANPATH does not hold the prefix."""
    unit = (prefix / UNIT).read_text()
    assert f"ExecStart={prefix}/bin/downloadfs mount --foreground %h/%I" in unit, unit
    instance = tmp_path / "downloadfs@dl.service"
    instance.write_text(unit)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    assert f"Documentation=man:{prefix}/share/man/man1/downloadfs.1" in unit, unit
    env = {key: value for key, value in os.environ.items() if key != "MANPATH"}
    env["XDG_RUNTIME_DIR"] = str(runtime)
    result = _run(["systemd-analyze", "verify", "--user", instance], env=env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def _unit_command(unit, key, home, instance, options):
    """The unit's `key=` command line as systemd runs it for `instance`."""
    [line] = [line for line in unit.splitlines() if line.startswith(key + "=")]
    words = shlex.split(line[len(key) + 1:].replace("%h", str(home)).replace("%I", instance))
    return [piece for word in words
            for piece in (options if word == "$DOWNLOADFS_OPTIONS" else [word])]


def test_r8_the_unit_mounts_at_start_and_unmounts_at_stop(prefix, make_mount, tmp_path):
    """Runs the unit's own ExecStartPre, ExecStart and ExecStop for
    `downloadfs@dl` with HOME in a temp dir, as the user manager would at
    login and logout (there is no user manager to ask here)."""
    unit = (prefix / UNIT).read_text()
    mount = make_mount(start=False, mountpoint=tmp_path / "home" / "dl")
    home = tmp_path / "home"
    options = ["--state-dir", str(mount.state)]
    assert _run(_unit_command(unit, "ExecStartPre", home, "dl", options)).returncode == 0
    assert (home / "dl").is_dir()
    start = _unit_command(unit, "ExecStart", home, "dl", options)
    log = open(mount.base / "unit.log", "wb")
    mount.proc = subprocess.Popen(start, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    log.close()
    wait_until(lambda: mount.proc.poll() is not None or mount.ready(), 20, "the unit's mount")
    assert mount.ready(), (mount.base / "unit.log").read_text()
    stop = _run(_unit_command(unit, "ExecStop", home, "dl", options), timeout=60)
    assert stop.returncode == 0, stop.stderr
    assert mount.proc.wait(timeout=30) == 0
    assert not os.path.ismount(home / "dl")
