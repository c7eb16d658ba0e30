"""R55: TLS certificates are checked and a failure names its cause; trust
can be added (`--ca-certificate`, `SSL_CERT_FILE`); proxies come from the
daemon's environment (`http_proxy`, `no_proxy`) and a dead one is named.

Certificates come from `support/certs.py` (one set per session): a test CA,
a CA nobody trusts, and a leaf for each way a server's certificate can be
wrong. Each HTTPS server is a `FaultServer` presenting one leaf.
"""

import random
import re
import shutil
import subprocess

import pytest

from support.certs import make_certs
from support.cli import one_line_message, run_cli
from support.faultserver import FaultServer, unused_port
from support.files import KiB, sha256_file, sha256_of
from support.mount import mounted_in_table

# Every variable libcurl (or the curl tool) reads a proxy from.
PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ftp_proxy",
                   "FTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")

# A name that never resolves (RFC 2606): only a proxy can fetch it.
UNRESOLVABLE = "downloads.example"


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    """{name: Pair(cert, key)} from `support.certs.make_certs`, made once."""
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def https_server(request):
    """Factory: `https_server(certs["valid"])` → a started HTTPS `FaultServer`."""
    servers = []

    def make(pair):
        server = FaultServer(tls=pair)
        servers.append(server)
        # Shown in the failure report, as the `faultserver` fixture's are.
        request.node.downloadfs_faultservers = list(servers)
        return server

    yield make
    for server in servers:
        server.stop()


def proxy_env(**variables):
    """A daemon environment with no proxy variable but `variables`."""
    env = dict.fromkeys(PROXY_VARIABLES)
    env.update(variables)
    return env


def wait_settled(mount, task, timeout=20):
    """Wait until the task has failed, completed, or is waiting to retry; return its status."""
    return mount.wait_state(task, ("failed", "completed", "retrying"), timeout=timeout)


# -- certificate checks ---------------------------------------------------------

def test_r55_tls_certificates_verified(make_mount, certs, https_server):
    """With no option at all, a certificate nobody trusts fails the task."""
    server = https_server(certs["self_signed"])
    mount = make_mount("--max-tries", "2")
    task = mount.add_one(server.add("/secure.bin", size=1000))
    status = mount.wait_state(task, "failed", timeout=20)
    assert re.search(r"certif|ssl|tls", status["error"], re.IGNORECASE), status["error"]
    assert mount.files() == []
    assert server.gets("/secure.bin") == [], "a request went over an unverified connection"


CAUSES = {
    "self_signed": "certificate is self-signed",
    "unknown_issuer": "unknown issuer",
    "wrong_name": "name does not match 127.0.0.1",
    "expired": "expired",
}


@pytest.mark.parametrize("leaf", list(CAUSES))
def test_r55_tls_failure_names_cause_at_once(make_mount, certs, https_server, leaf):
    # The test CA is trusted, so `wrong_name` and `expired` fail for their
    # own cause only; the other two do not involve the test CA at all.
    server = https_server(certs[leaf])
    mount = make_mount("--ca-certificate", certs["ca"].cert)
    task = mount.add_one(server.add("/secure.bin", size=10 * KiB, seed=5))
    status = wait_settled(mount, task)
    assert status["state"] == "failed", f"a {leaf} certificate must fail the task at once: {status}"
    assert status["attempts"] == "1", f"a certificate that will not change was retried: {status}"
    assert CAUSES[leaf] in status["error"], \
        f"the error should say {CAUSES[leaf]!r}: {status['error']!r}"
    assert server.gets("/secure.bin") == [], "a request went over an unverified connection"
    assert mount.files() == [], "a failed TLS task left a file in files/"


def test_r55_tls_test_ca_not_trusted_by_default(make_mount, certs, https_server):
    """Without the option the valid leaf's CA is unknown: what the next two
    tests add is what makes their downloads work."""
    server = https_server(certs["valid"])
    mount = make_mount()
    task = mount.add_one(server.add("/trusted.bin", size=10 * KiB, seed=11))
    status = wait_settled(mount, task)
    assert status["state"] == "failed", status
    assert "unknown issuer" in status["error"], status["error"]
    assert server.gets("/trusted.bin") == []


def test_r55_tls_ca_certificate_option_trusts_its_ca(make_mount, certs, https_server):
    server = https_server(certs["valid"])
    mount = make_mount("--ca-certificate", certs["ca"].cert)
    task = mount.add_one(server.add("/trusted.bin", size=300 * KiB, seed=11))
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "trusted.bin") == sha256_of(11, 300 * KiB), \
        "the downloaded bytes differ from what the server served"


def test_r55_tls_ssl_cert_file_honoured(make_mount, certs, https_server):
    # CURL_CA_BUNDLE would win over SSL_CERT_FILE in the curl tool; this
    # machine's environment may set it (to the system bundle).
    server = https_server(certs["valid"])
    mount = make_mount(env={"SSL_CERT_FILE": certs["ca"].cert, "CURL_CA_BUNDLE": None})
    task = mount.add_one(server.add("/trusted.bin", size=300 * KiB, seed=12))
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "trusted.bin") == sha256_of(12, 300 * KiB), \
        "the downloaded bytes differ from what the server served"


def test_r55_tls_ca_certificate_adds_to_the_store(make_mount, certs, https_server, tmp_path):
    """--ca-certificate adds its CA: the store (here a hashed directory given
    as SSL_CERT_DIR, standing in for /etc/ssl/certs) stays trusted."""
    store = tmp_path / "store"
    store.mkdir()
    shutil.copy(certs["other_ca"].cert, store / "other-ca.pem")
    subprocess.run(["openssl", "rehash", str(store)], check=True, capture_output=True, timeout=30)
    from_store = https_server(certs["unknown_issuer"])  # signed by the other CA
    from_option = https_server(certs["valid"])         # signed by the test CA
    mount = make_mount("--ca-certificate", certs["ca"].cert,
                       env={"SSL_CERT_DIR": str(store), "SSL_CERT_FILE": None, "CURL_CA_BUNDLE": None})
    first = mount.add_one(from_store.add("/store.bin", size=100 * KiB, seed=13))
    second = mount.add_one(from_option.add("/option.bin", size=100 * KiB, seed=14))
    mount.wait_state(first, "completed", timeout=30)
    mount.wait_state(second, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "store.bin") == sha256_of(13, 100 * KiB)
    assert sha256_file(mount.mp / "files" / "option.bin") == sha256_of(14, 100 * KiB)


def test_r55_tls_missing_ca_certificate_refuses_mount(make_mount, tmp_path):
    missing = tmp_path / "no-such-ca.pem"
    mount = make_mount("--ca-certificate", missing, start=False)
    mount.mp.mkdir(parents=True)  # so nothing but the option can be refused
    result = mount.assert_mount_refused(tmp_path)
    assert str(missing) in result.stderr, f"the message should name {missing}: {result.stderr!r}"


# What a CA file may hold that is not a certificate.
NOT_CERTIFICATES = {
    "random bytes": lambda certs: random.Random(55).randbytes(4096),
    "an empty file": lambda certs: b"",
    "a private key only": lambda certs: open(certs["ca"].key, "rb").read(),
}


@pytest.mark.parametrize("form", ["--ca-certificate", "-o ca-certificate="])
@pytest.mark.parametrize("kind", list(NOT_CERTIFICATES))
def test_r55_tls_a_ca_file_without_a_certificate_refuses_mount(make_mount, downloadfs_bin, certs, tmp_path,
                                                               kind, form):
    """A CA file with no certificate in it is refused at mount, with one
    line naming it, in both forms (the option, and mount(8)'s -o); it used
    to mount and then fail every https task for good."""
    bad = tmp_path / "ca.pem"
    bad.write_bytes(NOT_CERTIFICATES[kind](certs))
    assert b"CERTIFICATE" not in bad.read_bytes()
    if form == "--ca-certificate":
        mount = make_mount("--ca-certificate", bad, start=False)
        mount.mp.mkdir(parents=True)  # so nothing but the option can be refused
        result = mount.assert_mount_refused(tmp_path)
    else:
        mount = make_mount(start=False)
        mount.mp.mkdir(parents=True)
        result = run_cli([downloadfs_bin, mount.state, mount.mp, "-o", f"ca-certificate={bad}"], tmp_path,
                         env=mount.environ())
        assert result.returncode != 0, result
        assert one_line_message(result.stderr), f"want a one-line message, got {result.stderr!r}"
        assert not mounted_in_table(mount.mp)
    assert str(bad) in result.stderr, f"the message should name {bad}: {result.stderr!r}"
    assert "no PEM certificate" in result.stderr, f"the message should say why: {result.stderr!r}"


# -- proxies ----------------------------------------------------------------------

def test_r55_proxy_http_proxy_used(make_mount, faultserver):
    faultserver.add("/file.bin", size=200 * KiB, seed=21)
    mount = make_mount(env=proxy_env(http_proxy=f"http://127.0.0.1:{faultserver.port}"))
    url = f"http://{UNRESOLVABLE}/file.bin"
    task = mount.add_one(url)
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "file.bin") == sha256_of(21, 200 * KiB), \
        "the downloaded bytes differ from what the proxy served"
    gets = faultserver.gets("/file.bin")
    assert gets, "the proxy served no GET for /file.bin"
    assert all(r.proxied and r.absolute_url == url for r in gets), \
        f"every GET should be a proxy request for {url}: {[r.absolute_url for r in gets]}"
    assert all(r.headers.get("host") == UNRESOLVABLE for r in gets), \
        [r.headers.get("host") for r in gets]


def test_r55_proxy_unreachable_named_in_error(make_mount):
    port = unused_port()
    mount = make_mount("--max-tries", "1", env=proxy_env(http_proxy=f"http://127.0.0.1:{port}"))
    task = mount.add_one(f"http://{UNRESOLVABLE}/file.bin")
    status = mount.wait_state(task, "failed", timeout=20)
    assert "proxy" in status["error"], f"the error should say it is the proxy: {status['error']!r}"
    assert f"127.0.0.1:{port}" in status["error"], \
        f"the error should name the proxy 127.0.0.1:{port}: {status['error']!r}"
    assert mount.files() == []


def test_r55_proxy_no_proxy_goes_direct(make_mount, faultserver):
    dead = unused_port()
    url = faultserver.add("/direct.bin", size=200 * KiB, seed=22)
    mount = make_mount("--max-tries", "1",
                       env=proxy_env(http_proxy=f"http://127.0.0.1:{dead}", no_proxy="127.0.0.1"))
    task = mount.add_one(url)
    mount.wait_state(task, "completed", timeout=30)
    assert sha256_file(mount.mp / "files" / "direct.bin") == sha256_of(22, 200 * KiB), \
        "the downloaded bytes differ from what the server served"
    gets = faultserver.gets("/direct.bin")
    assert gets and not any(r.proxied for r in gets), \
        f"no_proxy=127.0.0.1 should go direct: {[r.absolute_url for r in gets]}"
