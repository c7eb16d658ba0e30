"""R10: aria2's other input options — referer, user-agent, http-user and
http-passwd, all-proxy, load-cookies — sent on every connection, kept
secret (R6), refused when malformed (R11).

The fault server records every header each request carried
(`RequestRecord.header_values`); proxies are a real tinyproxy
(`support/tinyproxy.py`) on a free loopback port.
"""

import base64
import os
import sqlite3
import time

import pytest

from support.faultserver import FaultServer, unused_port
from support.files import KiB, MiB, sha256_file, sha256_of, write_content
from support.ftpserver import FtpServer
from support.tinyproxy import TinyProxy

# Every variable libcurl reads a proxy from (see test_tls.py).
PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ftp_proxy",
                   "FTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")

PASSWORD = "pw-Zq81x-never-shown"
COOKIE_SECRET = "ck-Hv42p-cookie-value"

COOKIES = f"""\
# Netscape HTTP Cookie File
127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t{COOKIE_SECRET}
.127.0.0.1\tTRUE\t/opt\tFALSE\t4000000000\tpathed\tp1
#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\thonly\th1
127.0.0.1\tFALSE\t/other\tFALSE\t0\twrongpath\tx
127.0.0.1\tFALSE\t/\tTRUE\t0\tsecureonly\tx
127.0.0.1\tFALSE\t/\tFALSE\t1000000000\texpired\tx
example.com\tTRUE\t/\tFALSE\t0\tforeign\tx
this line is no cookie
"""
# What a request for http://127.0.0.1:PORT/opt/… sends: not the other
# path's, the secure one (http), the expired one, another domain's.
SENT = {f"session={COOKIE_SECRET}", "pathed=p1", "honly=h1"}


def proxy_env(**variables):
    """A daemon environment with no proxy variable but `variables`."""
    env = dict.fromkeys(PROXY_VARIABLES)
    env.update(variables)
    return env


def cookie_pairs(record):
    """The cookies a request sent, as a set of `name=value`."""
    return {pair.strip() for value in record.header_values("cookie") for pair in value.split(";") if pair.strip()}


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture
def tinyproxy(tmp_path):
    proxy = TinyProxy(tmp_path / "tinyproxy").start()
    yield proxy
    proxy.stop()


@pytest.fixture
def cookie_file(tmp_path):
    path = tmp_path / "cookies.txt"
    path.write_text(COOKIES)
    return path


def test_r10_r18_options_sent_on_every_connection_of_a_segmented_download(mount, faultserver, cookie_file):
    size = 8 * MiB
    # 2 MiB/s per connection: the others open while the first still runs.
    url = faultserver.add("/opt/seg.bin", size=size, seed=251, throttle=2 * MiB)
    task = mount.add_one(url, "split=4", "referer=https://example.com/page", "user-agent=TestAgent/1.0 (R10)",
                         "http-user=alice", f"http-passwd={PASSWORD}", f"load-cookies={cookie_file}")
    mount.wait_state(task, "completed", timeout=60)
    assert sha256_file(mount.mp / "files" / "seg.bin") == sha256_of(251, size)
    gets = faultserver.gets("/opt/seg.bin")
    assert len({r.connection for r in gets}) >= 2, f"want several connections: {[r.range for r in gets]}"
    for r in gets:
        assert r.header_values("referer") == ["https://example.com/page"], r.header_lines
        assert r.header_values("user-agent") == ["TestAgent/1.0 (R10)"], r.header_lines
        assert r.header_values("authorization") == [basic("alice", PASSWORD)], r.header_lines
        assert cookie_pairs(r) == SENT, r.header_lines


def test_r10_later_values_replace_earlier_and_star_referer_is_the_url(mount, faultserver):
    url = faultserver.add("/star.bin", size=10 * KiB)
    task = mount.add_one(url, "user-agent=first", "user-agent=second", "referer=http://a.example/", "referer=*")
    mount.wait_state(task, "completed")
    gets = faultserver.gets("/star.bin")
    assert gets and all(r.header_values("user-agent") == ["second"] for r in gets), [r.header_lines for r in gets]
    assert all(r.header_values("referer") == [url] for r in gets), [r.header_lines for r in gets]


def test_r10_default_user_agent_without_the_option(mount, faultserver):
    task = mount.add_one(faultserver.add("/plain.bin", size=10 * KiB))
    mount.wait_state(task, "completed")
    agents = [r.header_values("user-agent") for r in faultserver.gets("/plain.bin")]
    assert agents and all(a and a[0].startswith("downloadfs/") for a in agents), agents
    assert all(not r.header_values("referer") and not r.header_values("cookie")
               and not r.header_values("authorization") for r in faultserver.gets("/plain.bin"))


def test_r6_http_passwd_and_cookies_never_shown(mount, faultserver, cookie_file):
    url = faultserver.add("/opt/secret.bin", size=10 * KiB)
    task = mount.add_one(url, "http-user=bob", f"http-passwd={PASSWORD}", f"load-cookies={cookie_file}")
    mount.wait_state(task, "completed")
    # A refused write that held a password does not repeat it either.
    mount.assert_refused_write(f"{faultserver.url('/other.bin')}\n  http-passwd={PASSWORD}\n  all-proxy=ftp://x:1\n"
                               .encode())
    shown = {
        "status": mount.read(f"queue/{task}/status"),
        "url": mount.read(f"queue/{task}/url"),
        "root status": mount.read("status"),
        "log": mount.log(),
        "task log": mount.task_log(task),
    }
    for where in (mount.mp / "files" / "secret.bin", mount.data_path(task)):
        for name in os.listxattr(where):
            shown[f"xattr {name} of {where}"] = os.getxattr(where, name).decode(errors="replace")
    for where, text in shown.items():
        assert PASSWORD not in text, f"the password shows in {where}: {text!r}"
        assert COOKIE_SECRET not in text, f"a cookie shows in {where}: {text!r}"
    # Only the catalog (0600) holds them.
    for path in mount.state.rglob("*"):
        if path.is_file() and not path.name.startswith("catalog.sqlite"):
            assert PASSWORD.encode() not in path.read_bytes(), f"the password is in {path}"
    with sqlite3.connect(f"file:{mount.state / 'catalog.sqlite'}?mode=ro", uri=True, timeout=5) as db:
        options = db.execute("SELECT options FROM task WHERE id = ?", (task,)).fetchone()[0]
    assert PASSWORD in options and COOKIE_SECRET in options


def test_r10_no_credentials_or_cookies_after_a_redirect_to_another_host(mount, faultserver, tmp_path):
    other = FaultServer()
    try:
        target = other.add("/moved.bin", size=10 * KiB, seed=9)
        faultserver.add("/start.bin", redirect_to=target)
        cookies = tmp_path / "hosts.txt"
        cookies.write_text("localhost\tFALSE\t/\tFALSE\t0\tmine\tm1\n127.0.0.1\tFALSE\t/\tFALSE\t0\ttheirs\tt1\n")
        task = mount.add_one(f"http://localhost:{faultserver.port}/start.bin", "http-user=carol",
                             f"http-passwd={PASSWORD}", f"load-cookies={cookies}")
        mount.wait_state(task, "completed")
        first = faultserver.gets("/start.bin")
        assert first and all(r.header_values("authorization") == [basic("carol", PASSWORD)] for r in first)
        assert all(cookie_pairs(r) == {"mine=m1"} for r in first), [r.header_lines for r in first]
        moved = other.gets("/moved.bin")
        assert moved, "the redirect was not followed"
        for r in moved:
            assert not r.header_values("authorization"), f"credentials went to another host: {r.header_lines}"
            assert not r.header_values("cookie"), f"cookies went to another host: {r.header_lines}"
    finally:
        other.stop()


def test_r10_cookies_are_kept_with_the_task_when_the_file_is_gone(mount, faultserver, cookie_file):
    # The first answer is a 503: the task asks again after its back-off,
    # by when the file is gone.
    url = faultserver.add("/opt/later.bin", size=10 * KiB, status=503, retry_after=1)
    task = mount.add_one(url, f"load-cookies={cookie_file}")
    cookie_file.unlink()
    mount.wait_state(task, "completed", timeout=30)
    gets = faultserver.gets("/opt/later.bin")
    assert len(gets) >= 2 and gets[0].status == 503, [r.status for r in gets]
    assert all(cookie_pairs(r) == SENT for r in gets), [r.header_lines for r in gets]
    # The file's five unexpired cookies for 127.0.0.1 were kept (the path and
    # secure flag are matched per request); the log says how many, not which.
    log = mount.task_log(task)
    assert "load-cookies: kept 5 cookies for this task's hosts" in log, log
    assert COOKIE_SECRET not in log


def test_r11_missing_cookie_file_refuses_the_write(mount, faultserver, tmp_path):
    url = faultserver.add("/never.bin", size=10 * KiB)
    log_before = mount.log()
    mount.assert_refused_write(f"{url}\n  load-cookies={tmp_path / 'missing.txt'}\n".encode())
    new_log = mount.log()[len(log_before):]
    assert "line 2" in new_log and "No such file or directory" in new_log, new_log
    assert str(tmp_path / "missing.txt") in new_log, new_log
    mount.assert_refused_write(f"{url}\n  load-cookies=relative.txt\n".encode())
    assert "not an absolute path" in mount.log()
    assert faultserver.gets("/never.bin") == []


def test_r11_a_cookie_file_that_blocks_holds_up_no_writer(make_mount, faultserver, tmp_path):
    # The kernel lets one write to queue/new in at a time: a cookie file whose read blocks
    # (here another mount's `wait` of a paused task; a hung NFS server alike) must not hold them all.
    mount, other = make_mount(), make_mount()
    paused = other.add_one(faultserver.add("/held.bin", size=MiB, throttle=16 * KiB))
    other.ctl(paused, "pause")
    other.wait_state(paused, "paused")
    url = faultserver.add("/c.bin", size=KiB)
    began = time.monotonic()
    mount.assert_refused_write(f"{url}\n  load-cookies={other.task_dir(paused) / 'wait'}\n".encode())
    assert time.monotonic() - began < 10
    assert "not read within 2 s" in mount.log(), mount.log()
    assert mount.add_one(faultserver.add("/d.bin", size=KiB)), "the next writer goes in"
    # Its own mount, through a link: refused before it is read (it would wait for itself).
    link = tmp_path / "into-the-mount"
    link.symlink_to(mount.mp)
    mount.assert_refused_write(f"{url}\n  load-cookies={link / 'status'}\n".encode())
    assert "the file is inside this mount" in mount.log()
    other.ctl(paused, "resume")


@pytest.mark.parametrize("line, words", [
    ("referer=", "malformed option referer"),
    ("user-agent=", "malformed option user-agent"),
    ("http-user=", "malformed option http-user"),
    ("all-proxy=ftp://127.0.0.1:21", "unsupported proxy scheme"),
    ("all-proxy=http://127.0.0.1:70000", "invalid port"),
])
def test_r11_malformed_option_values_refuse_the_write(mount, faultserver, line, words):
    url = faultserver.add("/never.bin", size=10 * KiB)
    log_before = mount.log()
    mount.assert_refused_write(f"{url}\n  {line}\n".encode())
    new_log = mount.log()[len(log_before):]
    assert "line 2" in new_log and words in new_log, new_log
    assert faultserver.gets("/never.bin") == []


def test_r10_all_proxy_goes_through_that_proxy_overriding_the_environment(make_mount, faultserver, tinyproxy):
    # The environment's proxy is dead and says 127.0.0.1 goes direct: the
    # task's proxy overrides both.
    mount = make_mount(env=proxy_env(http_proxy=f"http://127.0.0.1:{unused_port()}", no_proxy="127.0.0.1"))
    url = faultserver.add("/proxied.bin", size=200 * KiB, seed=33)
    task = mount.add_one(url, f"all-proxy={tinyproxy.url}", "user-agent=ThroughProxy/1")
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "proxied.bin") == sha256_of(33, 200 * KiB)
    gets = faultserver.gets("/proxied.bin")
    assert gets and all("tinyproxy" in r.headers.get("via", "") for r in gets), \
        f"every GET should come through tinyproxy: {[r.header_lines for r in gets]}"
    assert all(r.header_values("user-agent") == ["ThroughProxy/1"] for r in gets)
    assert any(f"GET {url}" in line for line in tinyproxy.requests()), tinyproxy.log()


def test_r10_empty_all_proxy_goes_direct(make_mount, faultserver):
    mount = make_mount("--max-tries", "1", env=proxy_env(http_proxy=f"http://127.0.0.1:{unused_port()}"))
    url = faultserver.add("/direct.bin", size=10 * KiB)
    task = mount.add_one(url, "all-proxy=")
    mount.wait_state(task, "completed", timeout=30)
    gets = faultserver.gets("/direct.bin")
    assert gets and not any(r.proxied or r.headers.get("via") for r in gets)


def test_r10_r53_dead_all_proxy_retries_naming_the_proxy(mount):
    dead = unused_port()
    task = mount.add_one("http://127.0.0.1:1/never.bin", f"all-proxy=http://user:{PASSWORD}@127.0.0.1:{dead}")
    status = mount.wait_state(task, "retrying", timeout=20)
    assert f"proxy 127.0.0.1:{dead}" in status["error"], status["error"]
    assert "all-proxy" in status["error"], status["error"]
    assert PASSWORD not in mount.read(f"queue/{task}/status") + mount.task_log(task) + mount.log()


def test_r10_http_user_and_passwd_log_in_to_ftp(mount, tmp_path):
    home = tmp_path / "ftp-home"
    home.mkdir()
    write_content(home / "login.bin", 77, 64 * KiB)
    ftp = FtpServer(home)
    try:
        url = f"ftp://127.0.0.1:{ftp.port}/login.bin"
        task = mount.add_one(url, f"http-user={FtpServer.USER}", f"http-passwd={FtpServer.PASSWORD}")
        mount.wait_state(task, "completed", timeout=30)
        assert sha256_file(mount.mp / "files" / "login.bin") == sha256_of(77, 64 * KiB)
        assert ftp.sent("USER") and set(ftp.sent("USER")) == {FtpServer.USER}, ftp.sent("USER")
        # A wrong password is the FTP server's refusal, in words, not a retry.
        bad = mount.add_one(f"ftp://127.0.0.1:{ftp.port}/login.bin?again", f"http-user={FtpServer.USER}",
                            f"http-passwd=wrong-{PASSWORD}")
        status = mount.wait_state(bad, "failed", timeout=30)
        assert "refused the login" in status["error"], status["error"]
        assert PASSWORD not in mount.read(f"queue/{bad}/status") + mount.task_log(bad) + mount.log()
    finally:
        ftp.stop()
