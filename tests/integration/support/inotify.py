"""inotify through ctypes: what a file manager watching a directory sees."""

import ctypes
import ctypes.util
import os
import select
import struct
import time

IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_DELETE_SELF = 0x00000400
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_EVENT = struct.Struct("iIII")


class Watch:
    """Watches directories for entries created and deleted; close() when done."""

    def __init__(self):
        self.fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.paths = {}
        self.events = []  # (path, mask, name), oldest first

    def add(self, path, mask=IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF):
        wd = _libc.inotify_add_watch(self.fd, os.fsencode(str(path)), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self.paths[wd] = str(path)

    def _drain(self, timeout):
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return
        data = os.read(self.fd, 65536)
        offset = 0
        while offset < len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size:offset + _EVENT.size + length].rstrip(b"\0").decode()
            self.events.append((self.paths.get(wd), mask, name))
            offset += _EVENT.size + length

    def wait_for(self, path, mask, name, timeout):
        """True once an event with `mask` for `name` in `path` (name "" for an
        event about `path` itself) was seen; polls with a deadline."""
        deadline = time.monotonic() + timeout
        while True:
            if any(p == str(path) and m & mask and n == name for p, m, n in self.events):
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._drain(min(left, 0.1))

    def close(self):
        os.close(self.fd)
