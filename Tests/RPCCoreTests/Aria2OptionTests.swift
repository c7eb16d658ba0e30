import DownloadFSCore
import RPCCore
import XCTest

/// getOption/changeOption and the global ones (R72), through the `ctl`s (R30, R31).
final class Aria2OptionTests: RPCTestCase {
    func test_getOptionShowsTheTasksCtlAsAria2Options() {
        let id = mount.put("http://h/a.iso") {
            $0.limit = 2 << 20
            $0.split = 8
            $0.view.folder = "isos"
        }
        XCTAssertEqual(result("aria2.getOption", [gid(id)]), .object([
            "max-download-limit": .string("2097152"), "split": .string("8"),
            "dir": .string("/home/u/dl/files/isos"), "out": .string("a.iso"),
        ]))
    }

    func test_changeOptionWritesLimitAndSplit() {
        let id = mount.put("http://h/a.iso")
        XCTAssertEqual(result("aria2.changeOption", [gid(id), .object(["max-download-limit": .string("500K"),
                                                                         "split": .string("2")])]), .string("OK"))
        XCTAssertEqual(mount.writes, ["ctl \(id) limit 500K", "ctl \(id) split 2"])
        XCTAssertEqual(mount.task(id)?.limit, 500 * 1024)
    }

    func test_changeOptionWithOneBadValueChangesNothing() {
        let id = mount.put("http://h/a.iso")
        let error = failure("aria2.changeOption", [gid(id), .object(["max-download-limit": .string("1M"), "split": .string("99")])])
        XCTAssertEqual(error.code, 1)
        XCTAssertEqual(mount.writes, [])
    }

    /// aria2c changes options of active and waiting downloads only.
    func test_changeOptionOfAStoppedTaskIsRefused() {
        for state in [TaskState.completed, .failed] {
            let id = mount.put("http://h/\(state)", state: state)
            let error = failure("aria2.changeOption", [gid(id), .object(["split": .string("2")])])
            XCTAssertEqual(error.message, "Cannot change option for GID#\(Aria2GID.text(id))")
        }
        XCTAssertEqual(mount.writes, [])
    }

    /// A removed result answers its options as they were, as aria2c's does.
    func test_getOptionOfARemovedResultIsItsOptionsBeforeRemoval() {
        let id = mount.put("http://h/a.iso", state: .downloading) { $0.split = 3 }
        let before = result("aria2.getOption", [gid(id)])
        XCTAssertEqual(result("aria2.remove", [gid(id)]), gid(id))
        XCTAssertEqual(result("aria2.getOption", [gid(id)]), before)
        XCTAssertEqual(failure("aria2.changeOption", [gid(id), .object(["split": .string("2")])]).message,
                       "Cannot change option for GID#\(Aria2GID.text(id))")
        XCTAssertEqual(result("aria2.removeDownloadResult", [gid(id)]), .string("OK"))
        XCTAssertEqual(failure("aria2.getOption", [gid(id)]).code, 1)
    }

    func test_globalOptionsAreTheMountsCtlAndDir() {
        XCTAssertEqual(result("aria2.getGlobalOption"), .object([
            "max-concurrent-downloads": .string("3"), "max-overall-download-limit": .string("0"),
            "split": .string("4"), "dir": .string("/home/u/dl/files"),
        ]))
        XCTAssertEqual(result("aria2.changeGlobalOption", [.object([
            "max-concurrent-downloads": .string("5"), "max-overall-download-limit": .string("1M"),
            "dir": .string("/home/u/dl/files"),
        ])]), .string("OK"))
        XCTAssertEqual(mount.writes, ["global max-active 5", "global limit 1M"])
    }

    func test_dirIsReadOnly() {
        XCTAssertEqual(failure("aria2.changeGlobalOption", [.object(["dir": .string("/tmp")])]).code, 1)
        XCTAssertEqual(failure("aria2.changeGlobalOption", [.object(["dir": .string("/home/u/dl/files/x")])]).code, 1)
        XCTAssertEqual(mount.writes, [])
    }
}
