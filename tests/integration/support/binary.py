"""Where the downloadfs binary under test lives."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def candidates():
    """Paths tried in order: $DOWNLOADFS_BIN, the release build, the debug build."""
    paths = []
    if os.environ.get("DOWNLOADFS_BIN"):
        paths.append(Path(os.environ["DOWNLOADFS_BIN"]))
    paths.append(REPO / ".build" / "release" / "downloadfs")
    paths.append(REPO / ".build" / "debug" / "downloadfs")
    return paths


def searched():
    """The candidates actually tried: only $DOWNLOADFS_BIN when it is set."""
    paths = candidates()
    return paths[:1] if os.environ.get("DOWNLOADFS_BIN") else paths


def find_binary():
    """The binary to test, or None when there is none.

    An explicit $DOWNLOADFS_BIN is never silently replaced by a build in the
    tree: if it names nothing runnable, the answer is None.
    """
    for path in searched():
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None
