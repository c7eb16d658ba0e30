import XCTest
@testable import DownloadFSCore

/// R4: `downloadfs add` and `ctl` print the reason the mount refused their
/// own write, from the `MOUNT/log` line that names them, however many other
/// writers were refused at the same moment.
final class RefusalLogLineTests: XCTestCase {
    func test_R4_theDaemonNamesTheWriter() {
        XCTAssertEqual("queue/new: refused a write\(RefusalLogLine.tag(pid: 1234)), nothing added",
                       "queue/new: refused a write (pid 1234), nothing added")
        XCTAssertEqual(RefusalLogLine.tag(pid: 0), "", "a writer the kernel could not name (another pid namespace)")
    }

    func test_R4_eachWriterFindsItsOwnLineWithoutTheTag() {
        let log = """
            2026-11-26T10:00:01Z queue/new: refused a write (pid 7), nothing added: line 2: unknown option "bogus1"
            2026-11-26T10:00:01Z queue/new: refused a write (pid 8), nothing added: line 2: unknown option "bogus2"
            2026-11-26T10:00:02Z queue/new: could not add (pid 9), nothing added from that write: disk full
            2026-11-26T10:00:03Z task 4 added: http://h/x

            """
        XCTAssertEqual(RefusalLogLine.newest(from: "queue/new", writer: 7, inLog: log),
                       "queue/new: refused a write, nothing added: line 2: unknown option \"bogus1\"")
        XCTAssertEqual(RefusalLogLine.newest(from: "queue/new", writer: 8, inLog: log),
                       "queue/new: refused a write, nothing added: line 2: unknown option \"bogus2\"")
        XCTAssertEqual(RefusalLogLine.newest(from: "queue/new", writer: 9, inLog: log),
                       "queue/new: could not add, nothing added from that write: disk full")
        XCTAssertNil(RefusalLogLine.newest(from: "queue/new", writer: 10, inLog: log))
        XCTAssertNil(RefusalLogLine.newest(from: "ctl", writer: 7, inLog: log))
    }

    func test_R4_theNewestOfAWritersLinesCounts() {
        let log = """
            1 queue/new: refused a write (pid 7), nothing added: line 1: old
            2 queue/new: refused the last line (pid 7), nothing added from it: line 3: new

            """
        XCTAssertEqual(RefusalLogLine.newest(from: "queue/new", writer: 7, inLog: log),
                       "queue/new: refused the last line, nothing added from it: line 3: new")
    }

    func test_R4_textTheWriterChoseCannotPassForTheTag() {
        // Writer 8 wrote a command holding writer 7's tag; only the first
        // phrase, which the daemon writes, names the writer.
        let log = """
            1 ctl: refused (pid 7): unknown command "mine" (use max-active N)
            2 ctl: refused (pid 8): unknown command "x (pid 7)" (use max-active N)
            3 queue/new: refused a write (pid 8), nothing added: line 1: bad URL "http://h/ (pid 7)"

            """
        XCTAssertEqual(RefusalLogLine.newest(from: "ctl", writer: 7, inLog: log),
                       "ctl: refused: unknown command \"mine\" (use max-active N)")
        XCTAssertNil(RefusalLogLine.newest(from: "queue/new", writer: 7, inLog: log))
    }

    func test_R4_aSourceIsMatchedWhole() {
        let log = "1 queue/3/ctl: refused (pid 7): a\n2 queue/13/ctl: refused (pid 7): b\n"
        XCTAssertNil(RefusalLogLine.newest(from: "ctl", writer: 7, inLog: log), "queue/3/ctl is not the root's ctl")
        XCTAssertEqual(RefusalLogLine.newest(from: "queue/3/ctl", writer: 7, inLog: log), "queue/3/ctl: refused: a")
    }

    func test_R4_aDaemonThatNamesNoWriterIsReadAsBefore() {
        let log = """
            1 queue/new: refused a write, nothing added: line 1: older
            2 queue/new: refused a write (pid 5), nothing added: line 1: another's
            3 queue/new: refused a write, nothing added: line 1: newest unnamed

            """
        XCTAssertEqual(RefusalLogLine.newest(from: "queue/new", writer: 7, inLog: log),
                       "queue/new: refused a write, nothing added: line 1: newest unnamed",
                       "no line names writer 7: the newest that names nobody")
    }
}
