"""R10–R14: adding downloads through queue/new."""

import errno
import json
import os
import re
import sqlite3
import subprocess
import threading
import time

import pytest

from support.faultserver import unused_port
from support.files import KiB, MiB, content, sha256_file, sha256_of
from support.mount import expect_errno, opened, write_all
from support.waiting import wait_until


def _urls_by_id(mount):
    return {task: (mount.task_dir(task) / "url").read_text().strip() for task in mount.task_ids()}


def test_r10_echo_url_adds_task(mount, faultserver):
    url = faultserver.add("/echo.bin", size=100 * KiB, seed=4)
    result = subprocess.run(["sh", "-c", f'echo "{url}" > "{mount.new}"'],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    [(task, task_url)] = _urls_by_id(mount).items()
    assert task_url == url
    mount.wait_state(task, "completed")
    assert sha256_file(mount.mp / "files" / "echo.bin") == sha256_of(4, 100 * KiB)


def test_r10_aria2_input_file_with_options(mount, faultserver, tmp_path):
    x_url = faultserver.add("/x.bin", size=50 * KiB, seed=5)
    y_url = faultserver.add("/y.bin", size=60 * KiB, seed=6)
    listing = tmp_path / "list.txt"
    listing.write_text(
        "# an aria2 input file\n"
        "\n"
        f"{x_url}\n"
        "  out=renamed.bin\n"
        "  header=X-Test: hello\n"
        "\theader=X-Other: two\n"
        "   \n"
        f"{y_url}\n"
        f"\tmax-download-limit=1M\n"
        f"  checksum=sha-256={sha256_of(6, 60 * KiB)}\n")
    result = subprocess.run(["sh", "-c", f'cat "{listing}" > "{mount.new}"'],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    by_url = {url: task for task, url in _urls_by_id(mount).items()}
    assert set(by_url) == {x_url, y_url}, "comments and blank lines must not add tasks"
    mount.wait_state(by_url[x_url], "completed")
    mount.wait_state(by_url[y_url], "completed")
    assert mount.files() == ["renamed.bin", "y.bin"]
    get = faultserver.gets("/x.bin")[-1]
    assert get.headers.get("x-test") == "hello"
    assert get.headers.get("x-other") == "two"
    assert "x-test" not in faultserver.gets("/y.bin")[-1].headers


# -- R11: what gets rejected ---------------------------------------------------

def _bad_url_lines(base):
    return {
        "file-scheme": "file:///etc/passwd",
        "javascript-scheme": "javascript:alert(1)",
        "data-scheme": "data:text/plain,hello",
        "gopher-scheme": "gopher://127.0.0.1/x",
        "no-host": "http:///path/x.bin",
        "empty-authority": "http://",
        "over-8k": f"{base}/" + "a" * (8 * 1024 + 10),
        "control-char": f"{base}/a\x01b.bin",
        "delete-char": f"{base}/a\x7fb.bin",
        "invalid-utf8": (f"{base}/".encode() + b"\xff\xfe.bin"),
    }


BAD_OPTIONS = {
    "unknown-option": "  frobnicate=1",
    "option-without-value": "  out",
    "malformed-checksum-hex": "  checksum=sha-256=xyz",
    "unknown-checksum-algo": "  checksum=crc32=abcd1234",
    "malformed-rate": "  max-download-limit=fast",
    "malformed-header": "  header=NoColonHere",
}


def _as_bytes(text):
    return text if isinstance(text, bytes) else text.encode()


@pytest.mark.parametrize("kind", list(_bad_url_lines("http://h")))
def test_r11_rejected_url_line(mount, faultserver, kind):
    good = faultserver.add("/good.bin", size=1000)
    bad = _bad_url_lines(f"http://127.0.0.1:{faultserver.port}")[kind]
    log_before = mount.log()
    mount.assert_refused_write(_as_bytes(good) + b"\n" + _as_bytes(bad) + b"\n")
    new_log = mount.log()[len(log_before):]
    assert re.search(r"line\D{0,3}2\b", new_log, re.IGNORECASE), \
        f"MOUNT/log should say line 2 was refused: {new_log!r}"
    assert faultserver.gets("/good.bin") == [], "the good URL of a refused write was fetched"


@pytest.mark.parametrize("kind", list(BAD_OPTIONS))
def test_r11_rejected_option(mount, faultserver, kind):
    good = faultserver.add("/good.bin", size=1000)
    log_before = mount.log()
    mount.assert_refused_write(f"{good}\n{BAD_OPTIONS[kind]}\n".encode())
    new_log = mount.log()[len(log_before):]
    assert re.search(r"line\D{0,3}2\b", new_log, re.IGNORECASE), new_log


def test_r11_echo_reports_invalid_argument(mount):
    result = subprocess.run(["bash", "-c", f'echo "file:///etc/passwd" > "{mount.new}"'],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode != 0
    assert "Invalid argument" in result.stderr, result.stderr
    assert mount.task_ids() == []


def test_r11_url_just_under_8k_accepted(mount, faultserver):
    base = f"http://127.0.0.1:{faultserver.port}/"
    url = base + "b" * (8000 - len(base))
    assert len(mount.add(url + "\n")) == 1


def test_r11_split_writes(mount, faultserver):
    url = faultserver.add("/split.bin", size=10 * KiB, seed=8)
    with opened(mount.new, os.O_WRONLY) as fd:
        cut = len(url) - 5
        for piece in (url[:cut], url[cut:] + "\n", "  out=joi", "ned.bin\n",
                      "  header=X-Split: ", "yes\n"):
            write_all(fd, piece.encode())
    [(task, task_url)] = _urls_by_id(mount).items()
    assert task_url == url
    mount.wait_state(task, "completed")
    assert mount.files() == ["joined.bin"]
    assert faultserver.gets("/split.bin")[-1].headers.get("x-split") == "yes"


def test_r11_url_taken_at_next_url_line(mount, faultserver):
    first = faultserver.add("/first.bin", size=1000)
    second = faultserver.add("/second.bin", size=1000)
    with opened(mount.new, os.O_WRONLY) as fd:
        write_all(fd, f"{first}\n  out=one.bin\n".encode())
        write_all(fd, f"{second}\n".encode())
        # The second URL ended the first one's options: it is a task now.
        assert first in _urls_by_id(mount).values()
    assert set(_urls_by_id(mount).values()) == {first, second}


def test_r11_final_line_without_newline_taken_at_close(mount, faultserver):
    url = faultserver.add("/final.bin", size=1000)
    with opened(mount.new, os.O_WRONLY) as fd:
        write_all(fd, url.encode())
    assert list(_urls_by_id(mount).values()) == [url]


def test_r11_bad_final_line_error_at_close(mount):
    fd = os.open(mount.new, os.O_WRONLY)
    os.write(fd, b"file:///etc/passwd")
    expect_errno(errno.EINVAL, os.close, fd)
    assert mount.task_ids() == []


def test_r11_refused_option_refuses_its_url_from_an_earlier_write(mount, faultserver):
    """R11: a URL whose option line is refused is never added without it."""
    url = faultserver.add("/optioned.bin", size=1000)
    fd = os.open(mount.new, os.O_WRONLY)
    try:
        write_all(fd, f"{url}\n  header=X-Token: 1\n".encode())
        expect_errno(errno.EINVAL, os.write, fd, b"  bogus=1\n")
    finally:
        os.close(fd)
    assert mount.task_ids() == []
    assert "the URL on line 1 is refused with it" in mount.log()


def test_r11_good_url_kept_when_the_final_line_is_bad(mount, faultserver):
    """A URL whose options ended is added even if the final line is refused at close."""
    url = faultserver.add("/kept.bin", size=1000)
    fd = os.open(mount.new, os.O_WRONLY)
    write_all(fd, f"{url}\nfile:///etc/passwd".encode())
    expect_errno(errno.EINVAL, os.close, fd)
    assert list(_urls_by_id(mount).values()) == [url]


def test_r11_refused_write_does_not_poison_the_handle(mount, faultserver):
    url = faultserver.add("/after.bin", size=1000)
    with opened(mount.new, os.O_RDWR) as fd:
        expect_errno(errno.EINVAL, os.write, fd, b"javascript:alert(1)\n")
        write_all(fd, f"{url}\n".encode())
        assert len(os.pread(fd, 100, 0).split()) == 1
    assert list(_urls_by_id(mount).values()) == [url]


# -- R12, R13: ids back, one task per URL ---------------------------------------

def test_r12_ids_read_back(mount, faultserver):
    a = faultserver.add("/a.bin", size=1000)
    b = faultserver.add("/b.bin", size=1000)
    with opened(mount.new, os.O_RDWR) as fd:
        write_all(fd, f"{a}\n{b}\n".encode())
        answer = os.pread(fd, 4096, 0).decode()
    ids = [int(x) for x in answer.split()]
    assert answer == "".join(f"{i}\n" for i in ids)
    assert len(ids) == 2 and ids[0] != ids[1]
    assert _urls_by_id(mount) == {ids[0]: a, ids[1]: b}
    # A handle that added nothing reads nothing.
    with opened(mount.new, os.O_RDWR) as fd:
        assert os.pread(fd, 4096, 0) == b""


def test_r11_r12_an_option_line_still_being_written_is_waited_for(mount, faultserver):
    """Ids read back while a URL's option line has no newline yet: the URL's
    options have not ended, so it is not added without them."""
    url = faultserver.add("/plain-name.bin", size=1000)
    with opened(mount.new, os.O_RDWR) as fd:
        write_all(fd, f"{url}\n  out=opt".encode())
        assert os.pread(fd, 4096, 0) == b"", "a URL was added before its option line ended"
        assert _urls_by_id(mount) == {}
        write_all(fd, b"ion.bin\n")
        [task] = [int(x) for x in os.pread(fd, 4096, 0).split()]
    assert mount.status(task)["name"] == "option.bin"
    # The same line ended by close instead.
    other = faultserver.add("/other-name.bin", size=1000)
    with opened(mount.new, os.O_RDWR) as fd:
        write_all(fd, f"{other}\n\tout=closed.bin".encode())
        assert os.pread(fd, 4096, 0) == b""
    assert sorted(mount.status(t)["name"] for t in _urls_by_id(mount)) == ["closed.bin", "option.bin"]


def test_r13_same_url_once(mount, faultserver):
    port = faultserver.port
    faultserver.add("/norm.bin", size=1000)
    faultserver.add("/n2.bin", size=1000)
    first = mount.add_one(f"http://127.0.0.1:{port}/norm.bin")
    assert mount.add_one(f"HTTP://127.0.0.1:{port}/norm.bin#fragment") == first
    assert mount.add_one(f"http://127.0.0.1:{port}/norm.bin") == first
    host = mount.add_one(f"http://localhost:{port}/n2.bin")
    assert mount.add_one(f"http://LocalHost:{port}/n2.bin#x") == host
    # Default port: nothing listens on 80, the task just retries meanwhile.
    default = mount.add_one("http://localhost:80/n3.bin")
    assert mount.add_one("http://LOCALHOST/n3.bin") == default
    assert len({first, host, default}) == 3
    assert len(mount.task_ids()) == 3
    mount.wait_state(first, "completed")
    assert mount.add_one(f"http://127.0.0.1:{port}/norm.bin") == first, "completed tasks match too"
    assert len(faultserver.gets("/norm.bin")) == 1, "the same URL was downloaded twice"


def test_r13_failed_url_added_again(make_mount, faultserver):
    mount = make_mount("--max-tries", "1")
    url = faultserver.add("/missing.bin", status=404, status_times=None)
    first = mount.add_one(url)
    mount.wait_state(first, "failed")
    second = mount.add_one(url)
    assert second != first


def test_r13_concurrent_same_url_one_task(mount, faultserver):
    url = faultserver.add("/same.bin", size=1000)
    answers = []

    def add():
        answers.append(mount.add_one(url))

    threads = [threading.Thread(target=add) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(answers) == 10 and len(set(answers)) == 1, answers
    assert mount.task_ids() == [answers[0]]


# -- R14: any file created in queue/ ---------------------------------------------

def test_r14_cp_file_into_queue(mount, faultserver, tmp_path):
    a = faultserver.add("/cp-a.bin", size=2000, seed=11)
    b = faultserver.add("/cp-b.bin", size=3000, seed=12)
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{a}\n{b}\n  out=bee.bin\n")
    result = subprocess.run(["cp", str(urls), str(mount.mp / "queue") + "/"],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    assert set(_urls_by_id(mount).values()) == {a, b}
    assert "urls.txt" not in os.listdir(mount.mp / "queue")
    for task in mount.task_ids():
        mount.wait_state(task, "completed")
    assert mount.files() == ["bee.bin", "cp-a.bin"]
    assert (mount.mp / "files" / "bee.bin").read_bytes() == content(12, 3000)


@pytest.mark.parametrize("flag", ["-a", "-p"])
def test_r14_cp_that_keeps_metadata_succeeds(mount, faultserver, tmp_path, flag):
    """`cp -a` and `cp -p` set the copy's mode, owner and times before
    closing it; on a file copied into `queue/` that is accepted and kept
    nowhere, so the copy that queued its URLs does not report a failure."""
    url = faultserver.add(f"/cp{flag}.bin", size=1000)
    urls = tmp_path / f"urls{flag}.txt"
    urls.write_text(url + "\n")
    result = subprocess.run(["cp", flag, str(urls), str(mount.mp / "queue") + "/"],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    assert list(_urls_by_id(mount).values()) == [url]
    assert urls.name not in os.listdir(mount.mp / "queue")
    mount.wait_state(mount.task_ids()[0], "completed")


def test_r14_bad_file_refused_as_a_whole(mount, faultserver, tmp_path):
    good = faultserver.add("/good.bin", size=1000)
    urls = tmp_path / "bad.txt"
    urls.write_text(f"{good}\nfile:///etc/passwd\n")
    result = subprocess.run(["cp", str(urls), str(mount.mp / "queue") + "/"],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode != 0
    assert mount.task_ids() == []
    wait_until(lambda: "bad.txt" not in os.listdir(mount.mp / "queue"), 2,
               "the refused file to leave the listing")


def test_r14_a_file_named_like_a_task_is_refused_with_a_reason(mount, faultserver, tmp_path):
    """`queue/<number>` is a task's name (one may take it any time): such a
    file is refused with EINVAL and a log line, not "File exists"."""
    urls = tmp_path / "99999"
    urls.write_text(f"{faultserver.add('/numbered.bin', size=1000)}\n")
    result = subprocess.run(["cp", str(urls), str(mount.mp / "queue") + "/"],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode != 0 and "Invalid argument" in result.stderr, result
    assert mount.task_ids() == []
    assert "queue/99999: refused: a name that is a number is a task's" in mount.log()


# -- R11: parsing takes time linear in the input ----------------------------------

HEADER_LINES = 200_000


def _many_headers(url):
    """One URL and 200,000 header= lines: about 8 MiB (R11's example)."""
    lines = [url] + [f"  header=X-H-{i:06d}: v-{i:06d}-abcdefghijk" for i in range(HEADER_LINES)]
    return ("\n".join(lines) + "\n").encode()


def _headers_stored(mount, url):
    db = sqlite3.connect(f"file:{mount.state / 'catalog.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        (options,) = db.execute("SELECT options FROM task WHERE url = ?", (url,)).fetchone()
    finally:
        db.close()
    return json.loads(options)["headers"]


@pytest.mark.parametrize("chunk", [None, 4 * KiB], ids=["one-8MiB-write", "4KiB-writes"])
def test_r11_parsing_is_linear_and_holds_up_no_other_writer(make_mount, faultserver, chunk):
    # Parsing is what is measured, not starting a transfer with 200,000
    # headers: one slot, taken by a slow download, keeps the new tasks queued.
    mount = make_mount("--max-active", "1")
    blocker = mount.add_one(faultserver.add("/blocker.bin", size=64 * MiB, throttle=MiB))
    mount.wait_state(blocker, "downloading")
    big_url = f"http://127.0.0.1:{unused_port()}/many-headers.bin"
    data = _many_headers(big_url)
    assert 8 * MiB <= len(data) < 9 * MiB
    chunk = chunk or len(data)
    other_url = faultserver.add("/other.bin", size=1000)
    box = {"written": 0}

    def big():
        began = time.monotonic()
        box["began"] = began
        try:
            with opened(mount.new, os.O_WRONLY) as fd:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view[:chunk])
                    view = view[written:]
                    box["written"] += written
                box["write"] = time.monotonic() - began
            box["total"] = time.monotonic() - began  # close took the URL
        except OSError as exc:
            box["error"] = exc

    def other():
        began = time.monotonic()
        try:
            box["other_id"] = mount.add_one(other_url)
        except (OSError, AssertionError) as exc:
            box["other_error"] = exc
        box["other"] = time.monotonic() - began

    writer = threading.Thread(target=big, daemon=True)
    writer.start()
    # Start the other writer while the big input is under way (a few 4 KiB
    # writes in, or just after the one big write began).
    wait_until(lambda: box["written"] >= 64 * KiB or "total" in box or "error" in box
               or ("began" in box and time.monotonic() - box["began"] > 0.05),
               10, "the big write to begin")
    other_writer = threading.Thread(target=other, daemon=True)
    other_writer.start()
    other_writer.join(3)
    other_blocked = other_writer.is_alive()
    writer.join(max(0.0, box["began"] + 5 - time.monotonic()))
    big_unfinished = writer.is_alive()
    if other_blocked or big_unfinished:
        # The old parser needs minutes: end the daemon so the blocked calls return.
        mount.emergency_stop()
        writer.join(10)
        other_writer.join(10)
    assert not other_blocked, f"another writer of queue/new waited over 3 s ({box['written']} bytes in)"
    assert not big_unfinished, f"8 MiB in {chunk}-byte writes not taken in 5 s ({box['written']} bytes in)"
    assert "error" not in box and "other_error" not in box, box
    assert box["total"] < 5, box
    assert box["other"] < 3, box
    urls = _urls_by_id(mount)
    urls.pop(blocker)
    assert sorted(urls.values()) == sorted([big_url, other_url]), urls
    assert urls[box["other_id"]] == other_url
    headers = _headers_stored(mount, big_url)
    assert len(headers) == HEADER_LINES
    assert headers[0] == "X-H-000000: v-000000-abcdefghijk"
    assert headers[-1] == f"X-H-{HEADER_LINES - 1:06d}: v-{HEADER_LINES - 1:06d}-abcdefghijk"
    # Cancel it before the blocker's slot frees: starting a transfer with
    # 200,000 headers is another matter (curl_slist_append walks the list).
    big_id = next(task for task, url in urls.items() if url == big_url)
    os.rmdir(mount.task_dir(big_id))


# -- R11: an option line refused for its length; where the input ends ----------

def test_r11_a_too_long_option_line_refuses_its_url_from_an_earlier_write(mount, faultserver):
    """R11: like a malformed one, an option line over 8 KiB refuses its URL
    too; it is never added without the header the user gave."""
    url = faultserver.add("/long-header.bin", size=1000)
    fd = os.open(mount.new, os.O_WRONLY)
    try:
        write_all(fd, f"{url}\n".encode())
        expect_errno(errno.EINVAL, os.write, fd, b"  header=X-Long: " + b"a" * 20000 + b"\n")
    finally:
        os.close(fd)
    assert mount.task_ids() == []
    assert "line 2: line is longer than 8 KiB (20017 bytes, at most 8192); the URL on line 1 is refused with it" \
        in mount.log()
    # The same line written in pieces, refused once it can no longer fit.
    script = (f"{{ echo '{url}?pieces'; printf '  header=X: '; head -c 1M /dev/zero | tr '\\0' a; echo; }}"
              f" > '{mount.new}'")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and "Invalid argument" in done.stderr, done
    assert mount.task_ids() == []


def test_r11_a_childs_close_does_not_end_the_options(mount, faultserver):
    """R11: options end at the next URL, read-back or close — the close of the
    process that opened queue/new, not a child's close of the copy it
    inherited (the subshell of `$(…)`)."""
    url = faultserver.add("/child.bin", size=1000)
    script = f'{{ echo "{url}"; echo "  out=$(echo wanted-name.bin)"; }} > "{mount.new}"'
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    [task] = mount.task_ids()
    assert mount.status(task)["name"] == "wanted-name.bin"
    # A child process that inherited the descriptor and exits, between the URL and its option.
    other = faultserver.add("/child2.bin", size=1000)
    with opened(mount.new, os.O_WRONLY) as fd:
        write_all(fd, f"{other}\n".encode())
        subprocess.run(["true"], pass_fds=[fd], timeout=10, check=True)
        write_all(fd, b"  out=also-wanted.bin\n")
    names = sorted(mount.status(t)["name"] for t in mount.task_ids())
    assert names == ["also-wanted.bin", "wanted-name.bin"]
    assert "refused" not in mount.log()


def test_r11_another_thread_of_the_opener_ends_the_input_and_hears_the_refusal(mount):
    """The kernel names a close by its thread: a thread of the opening process is the opener."""
    fd = os.open(mount.new, os.O_WRONLY)
    os.write(fd, b"file:///etc/passwd")
    outcome = []

    def close():
        try:
            os.close(fd)
            outcome.append(None)
        except OSError as error:
            outcome.append(error.errno)

    closer = threading.Thread(target=close)
    closer.start()
    closer.join(20)
    assert outcome == [errno.EINVAL]
    assert mount.task_ids() == []


def test_r11_what_a_child_writes_after_the_opener_closed_is_taken_at_the_last_close(mount, faultserver):
    url = faultserver.add("/late.bin", size=1000)
    fd = os.open(mount.new, os.O_WRONLY)
    try:
        child = subprocess.Popen(["sh", "-c", f"sleep 0.3; printf '%s\\n  out=late-name.bin' '{url}'"], stdout=fd)
    finally:
        os.close(fd)
    assert child.wait(timeout=20) == 0
    wait_until(lambda: mount.task_ids() != [], 10, "the child's URL to be added at the last close")
    [task] = mount.task_ids()
    assert mount.status(task)["name"] == "late-name.bin"
