"""R56: downloads with checksum= are verified before they count as completed."""

import hashlib

import pytest

from support.files import KiB, content


@pytest.mark.parametrize("algo,hasher", [("sha-256", hashlib.sha256), ("sha-1", hashlib.sha1),
                                         ("sha-512", hashlib.sha512), ("md5", hashlib.md5)])
def test_r56_checksum_ok(mount, faultserver, algo, hasher):
    data = content(56, 300 * KiB)
    url = faultserver.add("/ok.bin", size=len(data), seed=56)
    task = mount.add_one(url, f"checksum={algo}={hasher(data).hexdigest()}")
    mount.wait_state(task, "completed")
    assert (mount.mp / "files" / "ok.bin").read_bytes() == data


def test_r56_checksum_uppercase_hex_accepted(mount, faultserver):
    data = content(57, 10 * KiB)
    url = faultserver.add("/upper.bin", size=len(data), seed=57)
    task = mount.add_one(url, f"checksum=sha-256={hashlib.sha256(data).hexdigest().upper()}")
    mount.wait_state(task, "completed")


def test_r56_checksum_mismatch(mount, faultserver):
    data = content(58, 300 * KiB)
    wrong = "0123456789abcdef" * 4
    url = faultserver.add("/bad.bin", size=len(data), seed=58)
    task = mount.add_one(url, f"checksum=sha-256={wrong}")
    status = mount.wait_state(task, "failed")
    error = status["error"].lower()
    assert wrong in error, f"expected digest missing: {status['error']}"
    assert hashlib.sha256(data).hexdigest() in error, f"actual digest missing: {status['error']}"
    assert mount.files() == [], "an unverified file appeared in files/"
    assert not (mount.state / "files" / "bad.bin").exists()
