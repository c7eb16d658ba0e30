"""Parsers for what the mount shows: a task's `status` (R20) and the root table (R21)."""

import re

STATUS_KEYS = ["id", "name", "dir", "url", "state", "progress", "downloaded", "total", "speed",
               "connections", "eta", "attempts", "error", "added", "completed"]

STATES = {"queued", "downloading", "paused", "retrying", "verifying", "completed", "failed"}

SPEED_RE = re.compile(r"\d+(\.\d+)? (B|KiB|MiB|GiB)/s")
ETA_RE = re.compile(r"-|\d+s|\d+m\d{1,2}s|\d+h\d{1,2}m")
TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
PROGRESS_RE = re.compile(r"-|\d{1,3}(\.\d+)?%")


def parse_status_pairs(text):
    """The `key: value` lines of a status file as a list of pairs, in order."""
    pairs = []
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if not sep and line.endswith(":"):
            key, value = line[:-1], ""
        pairs.append((key, value))
    return pairs


def parse_status(text):
    """A status file as a dict."""
    return dict(parse_status_pairs(text))


def read_status(mp, task_id):
    """`MOUNT/queue/<id>/status` as a dict."""
    # surrogateescape: a name is bytes on Linux; a test can still compare it.
    with open(f"{mp}/queue/{task_id}/status", encoding="utf-8",
              errors="surrogateescape") as handle:
        return parse_status(handle.read())


class Table:
    """The root `status` table split into its parts."""

    def __init__(self, text):
        self.text = text
        lines = [line for line in text.splitlines() if line.strip()]
        assert len(lines) >= 2, f"root status needs a header and a totals line:\n{text}"
        self.header = lines[0]
        self.totals = lines[-1]
        self.lines = lines[1:-1]

    def rows(self):
        """One dict per task line: id, state, name (last column) and the raw line."""
        name_at = self.name_column()
        rows = []
        for line in self.lines:
            fields = line.split()
            rows.append({"id": int(fields[0]), "state": fields[1],
                         "name": line[name_at:].rstrip() if name_at is not None else fields[-1],
                         "line": line})
        return rows

    def name_column(self):
        """Character offset where the header's name column starts, or None."""
        match = re.search(r"\bname\b", self.header, re.IGNORECASE)
        return match.start() if match else None

    def ids(self):
        return [row["id"] for row in self.rows()]

    def state_counts(self):
        """The `(N downloading, M completed)` part of the totals line as a dict."""
        match = re.search(r"\(([^)]*)\)", self.totals)
        counts = {}
        if match:
            for part in match.group(1).split(","):
                part = part.strip()
                if part:
                    number, _, state = part.partition(" ")
                    counts[state] = int(number)
        return counts


def parse_size(text):
    """`1.2 GiB`, `512 B`, `3 KiB` → bytes (float)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|TiB)", text.strip())
    assert match, f"not a size: {text!r}"
    scale = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
    return float(match.group(1)) * scale[match.group(2)]
