"""Deterministic test content: any (seed, size) always yields the same bytes.

Content is built from 64 KiB chunks of SHAKE-128 output keyed by the seed and
the chunk index, so no two chunks (and no two seeds) repeat, any byte range
can be produced without producing what comes before it, and a download that
lands a chunk at the wrong offset cannot come out with the right digest.
Digests are computed, never stored.
"""

import functools
import hashlib
import os
import subprocess

CHUNK = 64 * 1024
KiB = 1024
MiB = 1024 * 1024


@functools.lru_cache(maxsize=4096)
def _chunk(seed, index):
    return hashlib.shake_128(b"downloadfs-test:%d:%d" % (seed, index)).digest(CHUNK)


def content_range(seed, start, end):
    """Bytes [start, end) of the content for `seed`."""
    if end <= start:
        return b""
    parts = []
    first, last = start // CHUNK, (end - 1) // CHUNK
    for index in range(first, last + 1):
        chunk = _chunk(seed, index)
        lo = start - index * CHUNK if index == first else 0
        hi = end - index * CHUNK if index == last else CHUNK
        parts.append(chunk[lo:hi])
    return b"".join(parts)


def content(seed, size):
    """All `size` bytes of the content for `seed`."""
    return content_range(seed, 0, size)


def iter_content(seed, size, block=4 * MiB):
    """The content for `seed` in blocks, for sizes not worth holding at once."""
    for start in range(0, size, block):
        yield content_range(seed, start, min(size, start + block))


def sha256_of(seed, size):
    """Hex SHA-256 of the content for `seed` and `size`."""
    digest = hashlib.sha256()
    for block in iter_content(seed, size):
        digest.update(block)
    return digest.hexdigest()


def write_content(path, seed, size):
    """Write the content for `seed` and `size` to `path`; return its hex SHA-256."""
    digest = hashlib.sha256()
    with open(path, "wb") as out:
        for block in iter_content(seed, size):
            out.write(block)
            digest.update(block)
    return digest.hexdigest()


def sha256_file(path, block=4 * MiB):
    """Hex SHA-256 of the file at `path`, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while True:
            data = handle.read(block)
            if not data:
                return digest.hexdigest()
            digest.update(data)


def merge_spans(spans):
    """Sorted, merged (start, end) half-open spans; empty ones left out."""
    merged = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def read_range(path, offset, length):
    """`length` bytes of `path` at `offset`, or up to its end: pread until
    then (each round advances or stops)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        got = bytearray()
        while len(got) < length:
            chunk = os.pread(fd, length - len(got), offset + len(got))
            if not chunk:
                break
            got += chunk
        return bytes(got)
    finally:
        os.close(fd)


def resident_bytes(path):
    """Bytes of `path` in the page cache, as util-linux's fincore counts them."""
    run = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return int(run.stdout.strip())
