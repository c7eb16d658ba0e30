import Foundation
import DownloadFSCore
@testable import RPCCore
import XCTest

/// `tellActive`, `tellWaiting` and `tellStopped` (R72), and aria2c's window over them.
final class Aria2ListTests: RPCTestCase {
    private func gids(_ value: JSONValue) -> [String] {
        (value.arrayValue ?? []).compactMap { $0.objectValue?["gid"]?.stringValue }
    }

    func test_windowFromTheHead() {
        let items = Array(0..<5)
        XCTAssertEqual(ResultWindow(offset: 0, num: 2).slice(items), [0, 1])
        XCTAssertEqual(ResultWindow(offset: 3, num: 10).slice(items), [3, 4])
        XCTAssertEqual(ResultWindow(offset: 5, num: 1).slice(items), [])
        XCTAssertEqual(ResultWindow(offset: 0, num: 0).slice(items), [])
        XCTAssertEqual(ResultWindow(offset: 0, num: -1).slice(items), [])
        XCTAssertEqual(ResultWindow(offset: 0, num: .max).slice(items), items)
    }

    /// aria2c's rule: -1 is the last item; the window ends there, newest first.
    func test_negativeOffsetCountsFromTheEndAndGoesBackwards() {
        let items = Array(0..<5)
        XCTAssertEqual(ResultWindow(offset: -1, num: 2).slice(items), [4, 3])
        XCTAssertEqual(ResultWindow(offset: -2, num: 3).slice(items), [3, 2, 1])
        XCTAssertEqual(ResultWindow(offset: -1, num: 10).slice(items), [4, 3, 2, 1, 0])
        XCTAssertEqual(ResultWindow(offset: -5, num: 3).slice(items), [0])
        XCTAssertEqual(ResultWindow(offset: -6, num: 3).slice(items), [])
        XCTAssertEqual(ResultWindow(offset: -1, num: .max).slice(items), [4, 3, 2, 1, 0])
    }

    func test_tellActiveListsDownloadingRetryingAndVerifying() {
        let a = mount.put("http://h/a", state: .downloading)
        mount.put("http://h/b", state: .queued)
        let c = mount.put("http://h/c", state: .retrying)
        let d = mount.put("http://h/d", state: .verifying)
        mount.put("http://h/e", state: .completed)
        XCTAssertEqual(gids(result("aria2.tellActive")), [a, c, d].map(Aria2GID.text))
    }

    func test_tellWaitingListsQueuedAndPausedThroughTheWindow() {
        let ids = (0..<4).map { mount.put("http://h/\($0)", state: $0 == 2 ? .paused : .queued) }
        mount.put("http://h/x", state: .downloading)
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(0), .integer(1000)])), ids.map(Aria2GID.text))
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(1), .integer(2)])), ids[1...2].map(Aria2GID.text))
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(-1), .integer(2)])), [ids[3], ids[2]].map(Aria2GID.text))
    }

    func test_aWindowFromTheHeadNeedsOnlyTheHeadOfTheList() {
        XCTAssertEqual(ResultWindow(offset: 0, num: 1000).itemsNeeded, 1000)
        XCTAssertEqual(ResultWindow(offset: 10, num: 5).itemsNeeded, 15)
        XCTAssertEqual(ResultWindow(offset: 0, num: 0).itemsNeeded, 0)
        XCTAssertNil(ResultWindow(offset: -1, num: 5).itemsNeeded, "counted from the end: the whole list")
        XCTAssertNil(ResultWindow(offset: 1, num: .max).itemsNeeded)
    }

    /// tellWaiting(0, N) reads the table only until it has N waiting rows:
    /// a front end's page of a queue of 100,000 costs a page (SPEC §9).
    func test_tellWaitingFromTheHeadStopsReadingTheTable() {
        let ids = (0..<50).map { _ in mount.put("http://h/\(UUID())", state: .queued) }
        let before = mount.tableLinesRead
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(0), .integer(3)])), ids[0..<3].map(Aria2GID.text))
        XCTAssertLessThanOrEqual(mount.tableLinesRead - before, 4, "the header and three rows")
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(-1), .integer(1)])), [Aria2GID.text(ids[49])])
    }

    /// A front end's "move up" must show: the mount's line, not the ids' order.
    func test_tellWaitingListsTheWaitingLineInStartOrder() {
        let ids = (0..<4).map { mount.put("http://h/\($0)", state: $0 == 2 ? .paused : .queued) }
        mount.setLine([ids[3], ids[0], ids[2], ids[1]])
        let before = mount.tableLinesRead
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(0), .integer(1000)])),
                       [ids[3], ids[0], ids[2], ids[1]].map(Aria2GID.text))
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(-1), .integer(2)])), [ids[1], ids[2]].map(Aria2GID.text))
        XCTAssertEqual(mount.tableLinesRead, before, "the line is enough: no table read")
    }

    /// Past the 64 KiB the attribute holds, the rest of the waiting tasks by id.
    func test_tellWaitingPastACutLineTakesTheRestFromTheTable() {
        let ids = (0..<5).map { mount.put("http://h/\($0)", state: .queued) }
        mount.setLine([ids[4], ids[1]], more: 3)
        let before = mount.tableLinesRead
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(0), .integer(2)])), [ids[4], ids[1]].map(Aria2GID.text))
        XCTAssertEqual(mount.tableLinesRead, before, "a window within the line reads no table")
        XCTAssertEqual(gids(result("aria2.tellWaiting", [.integer(0), .integer(10)])),
                       [ids[4], ids[1], ids[0], ids[2], ids[3]].map(Aria2GID.text))
    }

    func test_tellStoppedListsEndedThenRemoved() {
        let done = mount.put("http://h/a", state: .completed)
        let failed = mount.put("http://h/b", state: .failed)
        let running = mount.put("http://h/c", state: .downloading)
        XCTAssertEqual(result("aria2.remove", [gid(running)]), gid(running))
        let stopped = result("aria2.tellStopped", [.integer(0), .integer(10), .array([.string("gid"), .string("status")])])
        XCTAssertEqual(stopped, .array([
            .object(["gid": gid(done), "status": .string("complete")]),
            .object(["gid": gid(failed), "status": .string("error")]),
            .object(["gid": gid(running), "status": .string("removed")]),
        ]))
        XCTAssertEqual(gids(result("aria2.tellStopped", [.integer(-1), .integer(1)])), [Aria2GID.text(running)])
    }

    func test_keysApplyToEveryEntry() {
        mount.put("http://h/a", state: .downloading)
        XCTAssertEqual(result("aria2.tellActive", [.array([.string("status")])]), .array([.object(["status": .string("active")])]))
    }
}
