"""Mounting a state dir whose catalog another version of downloadfs wrote.

An older catalog is migrated in place and nothing in it is lost; a newer or
damaged one is refused with a message that says what to do, and left as it
was (issue 3: "nothing crashes on a catalog from an older schema").
"""

import os
import sqlite3

from support.files import KiB, MiB, sha256_file, sha256_of
from support.waiting import wait_until

V1 = "v1-tasks-and-events"

# The event table exactly as v1 created it: no foreign key to task.
V1_EVENT_TABLE = """
CREATE TABLE event_v1 ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "taskID" INTEGER,
                       "at" DATETIME NOT NULL, "message" TEXT NOT NULL);
INSERT INTO event_v1 (id, taskID, at, message) SELECT id, taskID, at, message FROM event;
DROP TABLE event;
ALTER TABLE event_v1 RENAME TO event;
CREATE INDEX "event_on_taskID" ON "event"("taskID");
"""


def _catalog(mount):
    return mount.state / "catalog.sqlite"


def _sql(mount, script=None, query=None, args=()):
    """Run a script or a query on the catalog while no daemon holds it."""
    with sqlite3.connect(_catalog(mount), timeout=10) as db:
        if script:
            db.executescript(script)
        return db.execute(query, args).fetchall() if query else None


def _migrations(mount):
    return [row[0] for row in _sql(mount, query="SELECT identifier FROM grdb_migrations ORDER BY rowid")]


def _make_v1(mount):
    """Turn the current catalog back into what v1 left: its event table, its
    task table without v3's ranges and v4's split and droppedMirrors, and its migration list,
    plus a log line of a task v1 had deleted."""
    _sql(mount, V1_EVENT_TABLE + f"""
        ALTER TABLE task DROP COLUMN ranges;
        ALTER TABLE task DROP COLUMN split;
        ALTER TABLE task DROP COLUMN droppedMirrors;
        DELETE FROM grdb_migrations WHERE identifier != '{V1}';
        INSERT INTO event (taskID, at, message) VALUES (999999, '2026-01-01 00:00:00.000', 'orphaned line');
    """)
    assert _migrations(mount) == [V1]
    assert "REFERENCES" not in _sql(mount, query="SELECT sql FROM sqlite_master WHERE name = 'event'")[0][0]


def test_v1_catalog_is_migrated_and_keeps_everything(mount, faultserver):
    done = mount.add_one(faultserver.add("/done.bin", size=100 * KiB, seed=1))
    mount.wait_state(done, "completed")
    size = 8 * MiB
    paused = mount.add_one(faultserver.add("/half.bin", size=size, seed=2, throttle=2 * MiB))
    mount.wait_downloaded(paused, 1 * MiB)
    mount.ctl(paused, "pause")
    kept = int(mount.wait_state(paused, "paused")["downloaded"])
    done_log = mount.task_log(done)
    assert mount.unmount() == 0
    _make_v1(mount)

    mount.remount()
    assert mount.integrity_check() == ["ok"]
    assert _migrations(mount)[0] == V1 and len(_migrations(mount)) >= 2, _migrations(mount)
    assert mount.status(done)["state"] == "completed"
    assert sha256_file(mount.mp / "files" / "done.bin") == sha256_of(1, 100 * KiB)
    assert mount.task_log(done) == done_log
    status = mount.status(paused)
    assert (status["state"], status["downloaded"]) == ("paused", str(kept))
    assert _sql(mount, query="SELECT count(*) FROM event WHERE taskID = 999999") == [(0,)]
    # v3 (R18): the count became the range from zero it stood for.
    assert _sql(mount, query="SELECT ranges FROM task WHERE id = ?", args=(paused,)) == [(f"0-{kept}",)]

    # The migrated task resumes where it was, not from zero.
    faultserver.update("/half.bin", throttle=None)
    mount.ctl(paused, "resume")
    mount.wait_state(paused, "completed", timeout=30)
    assert faultserver.gets("/half.bin")[-1].range_start == kept
    assert sha256_file(mount.mp / "files" / "half.bin") == sha256_of(2, size)

    # Cancelling a task now takes its log lines with it.
    assert _sql(mount, query="SELECT count(*) FROM event WHERE taskID = ?", args=(done,))[0][0] > 0
    os.rmdir(mount.task_dir(done))
    assert _sql(mount, query="SELECT count(*) FROM event WHERE taskID = ?", args=(done,)) == [(0,)]
    assert _sql(mount, query="PRAGMA foreign_key_check") == []


def _assert_refused(mount, tmp_path, words):
    result = mount.assert_mount_refused(tmp_path)
    for word in words:
        assert word in result.stderr, result.stderr


def _contents(mount):
    """Every row and schema line (opening a WAL database may touch its header
    bytes, so compare what it holds, not the file)."""
    with sqlite3.connect(_catalog(mount), timeout=10) as db:
        return list(db.iterdump())


def test_catalog_from_a_newer_version_is_refused(mount, faultserver, tmp_path):
    task = mount.add_one(faultserver.add("/kept.bin", size=10 * KiB))
    mount.wait_state(task, "completed")
    assert mount.unmount() == 0
    _sql(mount, "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future');"
                "PRAGMA wal_checkpoint(TRUNCATE);")
    before = _contents(mount)
    _assert_refused(mount, tmp_path, ["newer version of downloadfs", str(_catalog(mount))])
    assert _contents(mount) == before
    assert "v99-from-the-future" in _migrations(mount)


def test_damaged_catalog_is_refused(make_mount, tmp_path):
    mount = make_mount(start=False)
    mount.check_catalog = False  # damaged on purpose
    mount.mp.mkdir(parents=True)
    mount.state.mkdir(parents=True)
    _catalog(mount).write_bytes(b"this is not an SQLite database\n" * 200)
    before = _catalog(mount).read_bytes()
    _assert_refused(mount, tmp_path, ["catalog", "move it aside"])
    assert _catalog(mount).read_bytes() == before


def test_logs_are_trimmed_on_mount(mount, faultserver):
    """Old log lines do not pile up for ever: a mount keeps the newest
    5,000 daemon lines and 2,000 per task (what `log` and a task's `log` show)."""
    task = mount.add_one(faultserver.add("/logged.bin", size=1000))
    mount.wait_state(task, "completed")
    assert mount.unmount() == 0
    stamp = "2026-01-01 00:00:00.000"
    with sqlite3.connect(_catalog(mount), timeout=10) as db:
        db.executemany("INSERT INTO event (taskID, at, message) VALUES (NULL, ?, ?)",
                       [(stamp, f"old daemon line {i}") for i in range(5_500)])
        db.executemany("INSERT INTO event (taskID, at, message) VALUES (?, ?, ?)",
                       [(task, stamp, f"old task line {i}") for i in range(2_500)])
    mount.remount()
    # The mount's own line is committed by the loop's first turns, just after ready.
    daemon = wait_until(lambda: (rows := _sql(mount, query="SELECT message FROM event WHERE taskID IS NULL ORDER BY id"))
                        and rows[-1][0].startswith("mounted at") and rows, 10, "the mount's own log line")
    # The newest 5,000 at mount time were all inserted above; then the mount's own line.
    assert [m for (m,) in daemon[:-1]] == [f"old daemon line {i}" for i in range(500, 5_500)]
    assert daemon[-1][0].startswith("mounted at"), daemon[-1]
    shown = mount.log().splitlines()
    assert len(shown) == 5_000 and shown[0].endswith("old daemon line 501"), shown[0]
    lines = mount.task_log(task).splitlines()
    assert len(lines) == 2_000 and lines[-1].endswith("old task line 2499"), lines[-1]
    assert _sql(mount, query="SELECT count(*) FROM event WHERE taskID = ?", args=(task,)) == [(2_000,)]
