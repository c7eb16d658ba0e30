import RPCCore
import XCTest

/// `aria2.addUri` (R72): one task, its URLs mirrors, its options the input options of R10.
final class Aria2AddUriTests: RPCTestCase {
    func test_oneURLAddsOneTaskAndAnswersItsGID() {
        XCTAssertEqual(result("aria2.addUri", [.array([.string("http://h/a.iso")])]), .string("0000000000000001"))
        XCTAssertEqual(mount.writes, ["add http://h/a.iso"])
    }

    func test_severalURLsAreMirrorsOfOneTask() {
        let uris: [JSONValue] = [.string("http://h/a.iso"), .string("http://m/a.iso"), .string("ftp://f/a.iso")]
        XCTAssertEqual(result("aria2.addUri", [.array(uris)]), gid(1))
        XCTAssertEqual(mount.task(1)?.mirrors, ["http://m/a.iso", "ftp://f/a.iso"])
        XCTAssertNil(mount.task(2))
    }

    func test_inputOptionsBecomeOptionLines() {
        let options: JSONValue = .object([
            "out": .string("b.iso"), "header": .array([.string("X-A: 1"), .string("X-B: 2")]),
            "max-download-limit": .string("1M"), "split": .integer(3),
            "continue": .string("true"), "auto-file-renaming": .string("true"), "allow-overwrite": .string("false"),
        ])
        XCTAssertEqual(result("aria2.addUri", [.array([.string("http://h/a.iso")]), options]), gid(1))
        let task = mount.task(1)
        XCTAssertEqual(task?.view.name, "b.iso")
        XCTAssertEqual(task?.headers, ["X-A: 1", "X-B: 2"])
        XCTAssertEqual(task?.limit, 1 << 20)
        XCTAssertEqual(task?.split, 3)
    }

    func test_anUnknownOptionIsRefusedAndAddsNothing() {
        let error = failure("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["seed-time": .string("0")])])
        XCTAssertEqual(error.code, 1)
        XCTAssertEqual(error.message, "downloadfs does not take the option seed-time")
        XCTAssertEqual(mount.writes, [])
    }

    func test_anIgnoredOptionAskingOtherwiseIsRefused() {
        let error = failure("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["allow-overwrite": .string("true")])])
        XCTAssertEqual(error.message, "downloadfs always does allow-overwrite=false")
        XCTAssertEqual(mount.writes, [])
    }

    func test_aValueTheMountRefusesAddsNothing() {
        let error = failure("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["split": .string("x")])])
        XCTAssertEqual(error.code, 1)
        XCTAssertTrue(error.message.contains("split"), error.message)
        XCTAssertEqual(mount.writes, [])
    }

    func test_aValueWithALineBreakIsRefused() {
        _ = failure("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["out": .string("a\n  dir=x")])])
        _ = failure("aria2.addUri", [.array([.string("http://h/a.iso\nhttp://h/b")])])
        XCTAssertEqual(mount.writes, [])
    }

    func test_noURLIsInvalidParams() {
        XCTAssertEqual(failure("aria2.addUri", [.array([])]).code, -32602)
        XCTAssertEqual(failure("aria2.addUri", [.string("http://h/a")]).code, -32602)
    }

    func test_dirRelativeIsAFolderUnderFiles() {
        _ = result("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["dir": .string("isos/debian")])])
        XCTAssertEqual(mount.task(1)?.view.folder, "isos/debian")
        _ = result("aria2.addUri", [.array([.string("http://h/b.iso")]), .object(["dir": .string("isos/")])])
        XCTAssertEqual(mount.task(2)?.view.folder, "isos")
    }

    func test_dirAbsoluteUnderFilesIsMadeRelative() {
        _ = result("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["dir": .string("/home/u/dl/files/isos/")])])
        XCTAssertEqual(mount.task(1)?.view.folder, "isos")
        _ = result("aria2.addUri", [.array([.string("http://h/b.iso")]), .object(["dir": .string("/home/u/dl/files")])])
        XCTAssertEqual(mount.task(2)?.view.folder ?? "", "")
    }

    func test_dirElsewhereIsRefused() {
        for dir in ["/tmp", "/home/u/dl", "/home/u/dl/filesx/a"] {
            let error = failure("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["dir": .string(dir)])])
            XCTAssertEqual(error.code, 1, dir)
        }
        XCTAssertEqual(mount.writes, [])
    }

    func test_positionMovesTheNewTask() {
        _ = result("aria2.addUri", [.array([.string("http://h/a.iso")]), .object([:]), .integer(0)])
        XCTAssertEqual(mount.writes, ["add http://h/a.iso", "ctl 1 move 0"])
        XCTAssertEqual(failure("aria2.addUri", [.array([.string("http://h/b.iso")]), .object([:]), .integer(-1)]).code, -32602)
    }

    func test_pauseTrueAddsItPaused() {
        _ = result("aria2.addUri", [.array([.string("http://h/a.iso")]), .object(["pause": .string("true")])])
        XCTAssertEqual(mount.task(1)?.view.state, .paused)
    }
}
