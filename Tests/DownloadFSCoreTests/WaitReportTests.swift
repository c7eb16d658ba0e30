import XCTest
@testable import DownloadFSCore

/// R4: `downloadfs wait`, `add --wait` and `ctl` decide from what they read
/// in the mount's files; these are those decisions.
final class WaitReportTests: XCTestCase {
    // MARK: wait (R4, R22)

    func test_R22_whatWaitReturnsIsRead() {
        XCTAssertEqual(TaskEnding(waitText: "completed\n"), .completed)
        XCTAssertEqual(TaskEnding(waitText: "failed: HTTP 404 Not Found\n"), .failed("HTTP 404 Not Found"))
        XCTAssertEqual(TaskEnding(waitText: "failed: task removed\n"), .failed("task removed"))
        XCTAssertEqual(TaskEnding(waitText: "failed: unmounted"), .failed("unmounted"))
        for other in ["", "\n", "complete\n", "failed\n", "failed: \n", "downloading\n"] {
            XCTAssertNil(TaskEnding(waitText: other), other)
        }
    }

    func test_R4_oneLinePerTask() {
        XCTAssertEqual(TaskEnding.completed.line(id: 3, name: "ubuntu.iso"), "3 completed ubuntu.iso")
        XCTAssertEqual(TaskEnding.completed.line(id: 3, name: "a b.iso"), "3 completed a b.iso")
        XCTAssertEqual(TaskEnding.completed.line(id: 3, name: nil), "3 completed -")
        XCTAssertEqual(TaskEnding.failed("HTTP 404 Not Found").line(id: 12, name: "x"), "12 failed: HTTP 404 Not Found")
        XCTAssertEqual(TaskEnding.failed("task removed").line(id: 4, name: nil), "4 failed: task removed")
    }

    func test_R4_exitsZeroWhenAllCompletedAndThreeWhenAnyFailed() {
        XCTAssertEqual(TaskEnding.exitStatus([]), 0)
        XCTAssertEqual(TaskEnding.exitStatus([.completed, .completed]), 0)
        XCTAssertEqual(TaskEnding.exitStatus([.completed, .failed("HTTP 404 Not Found")]), 3)
        XCTAssertEqual(TaskEnding.exitStatus([.failed("task removed")]), 3)
    }

    func test_R4_waitWithoutIdsTakesTheUnfinishedRowsOfTheTable() {
        let table = """
            ID  STATE        PROGRESS  SPEED         ETA     NAME
            1   completed    100.0%    0 B/s         -       a.iso
            2   downloading  42.1%     1.0 MiB/s     2m27s   b c.iso
            3   failed       -         0 B/s         -       d.iso
            4   paused       10.0%     0 B/s         -       failed
            5   queued       -         0 B/s         -       e.iso
            12  retrying     -         0 B/s         -       f.iso
            total: 6 tasks (1 completed, 1 downloading, …), 12 MiB of 40 MiB, 1.0 MiB/s

            """
        XCTAssertEqual(StatusReading.unfinishedIDs(inTable: table), [2, 4, 5, 12])
        XCTAssertEqual(StatusReading.unfinishedIDs(inTable: "ID  STATE  PROGRESS  SPEED  ETA  NAME\ntotal: 0 tasks\n"), [])
    }

    func test_R20_aStatusValueIsRead() {
        let status = "id: 3\nname: my file.iso\nurl: http://h/f\nstate: completed\nerror: -\n"
        XCTAssertEqual(StatusReading.value("name", inStatus: status), "my file.iso")
        XCTAssertNil(StatusReading.value("error", inStatus: status), "- is no value")
        XCTAssertNil(StatusReading.value("total", inStatus: status))
    }

    // MARK: ctl (R4, R30, R31)

    func test_R4_ctlWritesToATaskOrTheMount() {
        XCTAssertEqual(ControlTarget("3"), .task(3))
        XCTAssertEqual(ControlTarget("all"), .all)
        for bad in ["", "0", "-1", "+3", "3x", "ALL", "1.0", "99999999999999999999"] {
            XCTAssertNil(ControlTarget(bad), bad)
        }
        XCTAssertEqual(ControlTarget.task(3).file, "queue/3/ctl")
        XCTAssertEqual(ControlTarget.all.file, "ctl")
    }

    func test_R4_ctlFindsTheReasonOfItsRefusalInTheLog() {
        let log = """
            2026-11-26T10:00:00Z task 3 added: http://h/a
            2026-11-26T10:00:01Z queue/3/ctl: refused (pid 40): unknown command "old" (use pause, resume)
            2026-11-26T10:00:02Z ctl: refused (pid 40): bad max-active "x" (use a whole number from 1 to 1000)
            2026-11-26T10:00:03Z queue/13/ctl: refused (pid 40): bad split "99" (use a whole number from 1 to 16)
            2026-11-26T10:00:04Z queue/3/ctl: refused (pid 40): unknown command "bogus" (use pause, resume)
            2026-11-26T10:00:05Z queue/new: refused a write (pid 40), nothing added: line 1: no URL

            """
        XCTAssertEqual(ControlTarget.task(3).refusal(inLog: log, writer: 40), "unknown command \"bogus\" (use pause, resume)")
        XCTAssertEqual(ControlTarget.all.refusal(inLog: log, writer: 40),
                       "bad max-active \"x\" (use a whole number from 1 to 1000)", "the root's ctl, not queue/3/ctl")
        XCTAssertEqual(ControlTarget.task(13).refusal(inLog: log, writer: 40), "bad split \"99\" (use a whole number from 1 to 16)")
        XCTAssertNil(ControlTarget.task(4).refusal(inLog: log, writer: 40))
        XCTAssertNil(ControlTarget.all.refusal(inLog: "", writer: 40))
    }

    func test_R4_ctlFindsItsOwnRefusalAmongOthersAtOnce() {
        let log = """
            2026-11-26T10:00:01Z ctl: refused (pid 101): unknown command "bogus1" (use max-active N, …)
            2026-11-26T10:00:01Z ctl: refused (pid 108): unknown command "bogus8" (use max-active N, …)
            2026-11-26T10:00:01Z queue/3/ctl: refused (pid 101): unknown command "mine" (use pause, …)

            """
        XCTAssertEqual(ControlTarget.all.refusal(inLog: log, writer: 101), "unknown command \"bogus1\" (use max-active N, …)",
                       "its own line, not the newest")
        XCTAssertEqual(ControlTarget.all.refusal(inLog: log, writer: 108), "unknown command \"bogus8\" (use max-active N, …)")
        XCTAssertNil(ControlTarget.all.refusal(inLog: log, writer: 999), "another's reason is never taken for one's own")
    }

    func test_R4_ctlReadsTheLogOfADaemonThatNamesNoWriter() {
        let log = """
            2026-11-26T10:00:01Z queue/3/ctl: refused: unknown command "old" (use pause, resume)
            2026-11-26T10:00:04Z queue/3/ctl: refused: unknown command "bogus" (use pause, resume)

            """
        XCTAssertEqual(ControlTarget.task(3).refusal(inLog: log, writer: 40), "unknown command \"bogus\" (use pause, resume)",
                       "the newest, as before the writer was named")
    }
}
