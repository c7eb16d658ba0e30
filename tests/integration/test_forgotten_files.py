"""R34, R41, R42, R43, R17: files/ shows files that belong to no task.

A forgotten task (R34) leaves its file in STATE/files as a plain file with
its name, size, mtime and extended attributes. Until `forget` itself is
there, these tests leave such a file the way it will: written straight into
STATE/files with the mount up, its mtime set, its attributes set, mode 0444.
"""

import errno
import os
import stat

from support.faultserver import DEFAULT_LAST_MODIFIED_EPOCH
from support.files import KiB
from support.mount import expect_errno

URL_ATTR = "user.xdg.origin.url"
MIME_ATTR = "user.mime_type"


def test_r41_r42_a_completed_file_carries_its_attributes_on_disk(mount, faultserver):
    """The file in STATE/files has R41's attributes itself, so they stay
    with it when nothing is mounted and once its task is forgotten."""
    faultserver.add("/typed.bin", size=10 * KiB, content_type="text/plain; charset=utf-8")
    task = mount.add_one(f"http://user:secret@127.0.0.1:{faultserver.port}/typed.bin")
    untyped = mount.add_one(faultserver.add("/untyped.bin", size=KiB, content_type=None))
    mount.wait_state(task, "completed")
    mount.wait_state(untyped, "completed")
    on_disk = mount.state / "files" / "typed.bin"
    clean = f"http://127.0.0.1:{faultserver.port}/typed.bin"
    assert os.getxattr(on_disk, URL_ATTR).decode() == clean
    assert os.getxattr(on_disk, MIME_ATTR) == b"text/plain"
    assert int(os.stat(on_disk).st_mtime) == DEFAULT_LAST_MODIFIED_EPOCH
    assert stat.S_IMODE(os.stat(on_disk).st_mode) == 0o444
    bare = mount.state / "files" / "untyped.bin"
    assert os.getxattr(bare, URL_ATTR).decode() == faultserver.url("/untyped.bin")
    expect_errno(errno.ENODATA, os.getxattr, bare, MIME_ATTR)
    assert mount.unmount() == 0
    assert os.getxattr(on_disk, URL_ATTR).decode() == clean, "gone when nothing is mounted"
