import DownloadFSCore
@testable import RPCCore
import XCTest

/// What `tellStatus` and friends show of a task (R72).
final class Aria2StatusTests: RPCTestCase {
    func test_gidIsTheIdIn16LowercaseHexDigits() {
        XCTAssertEqual(Aria2GID.text(7), "0000000000000007")
        XCTAssertEqual(Aria2GID.text(0xabc), "0000000000000abc")
        XCTAssertEqual(try Aria2GID.id("00000000000000ff"), 255)
        XCTAssertThrowsError(try Aria2GID.id("ff"))
        XCTAssertThrowsError(try Aria2GID.id("0000000000000000"))
        XCTAssertThrowsError(try Aria2GID.id("000000000000000g"))
    }

    func test_statesMapOntoAria2s() {
        let expected: [TaskState: String] = [.queued: "waiting", .downloading: "active", .retrying: "active",
                                             .verifying: "active", .paused: "paused", .completed: "complete",
                                             .failed: "error"]
        for (state, word) in expected {
            let id = mount.put("http://h/\(state.rawValue)", state: state)
            XCTAssertEqual(result("aria2.tellStatus", [gid(id), .array([.string("status")])]),
                           .object(["status": .string(word)]), state.rawValue)
        }
    }

    func test_errorCodeFollowsTheErrorSentence() {
        let cases = ["HTTP 404 Not Found": "3", "HTTP 410 Gone": "3", "the FTP server has no such file": "3",
                     "No space left on device": "9", "HTTP 401 Unauthorized": "24",
                     "the FTP server refused the login: wrong user name or password": "24",
                     "checksum mismatch: expected sha-256 ab, got cd": "32", "connection refused": "1"]
        for (sentence, code) in cases {
            let id = mount.put("http://h/x", state: .failed) { $0.view.error = sentence }
            let status = result("aria2.tellStatus", [gid(id), .array([.string("errorCode"), .string("errorMessage")])])
            XCTAssertEqual(status, .object(["errorCode": .string(code), "errorMessage": .string(sentence)]), sentence)
        }
    }

    func test_unfinishedTasksHaveNoErrorCode_completedOnesZero() {
        let active = mount.put("http://h/a", state: .downloading)
        XCTAssertNil(result("aria2.tellStatus", [gid(active)]).objectValue?["errorCode"])
        let done = mount.put("http://h/b", state: .completed)
        XCTAssertEqual(result("aria2.tellStatus", [gid(done)]).objectValue?["errorCode"], .string("0"))
    }

    func test_fullStatusOfADownloadingTask() {
        let id = mount.put("http://u:pw@h/a.iso", state: .downloading) {
            $0.view.downloaded = 2_621_440
            $0.view.total = 3_145_728 * 2
            $0.view.bytesPerSecond = 1_048_576
            $0.view.connections = 2
            $0.view.attempts = 1
        }
        let status = result("aria2.tellStatus", [gid(id)]).objectValue ?? [:]
        XCTAssertEqual(status["gid"], gid(id))
        XCTAssertEqual(status["totalLength"], .string("6291456"))
        XCTAssertEqual(status["completedLength"], .string("2621440"))
        XCTAssertEqual(status["downloadSpeed"], .string("1048576"))
        XCTAssertEqual(status["uploadSpeed"], .string("0"))
        XCTAssertEqual(status["connections"], .string("2"))
        XCTAssertEqual(status["dir"], .string("/home/u/dl/files"))
        XCTAssertEqual(status["numPieces"], .string("6"))
        XCTAssertEqual(status["pieceLength"], .string("1048576"))
        XCTAssertEqual(status["bitfield"], .string("c0"), "2.5 MiB held as a prefix: 2 whole pieces")
        let file = status["files"]?.arrayValue?.first?.objectValue ?? [:]
        XCTAssertEqual(file["path"], .string("/home/u/dl/queue/\(id)/a.iso"))
        XCTAssertEqual(file["length"], .string("6291456"))
        XCTAssertEqual(file["uris"], .array([.object(["uri": .string("http://u:***@h/a.iso"), "status": .string("used")])]))
    }

    /// R72: `bitfield` from the task's byte ranges: a split download holds
    /// pieces that are not a prefix, and a piece is set only when whole.
    func test_bitfieldComesFromTheRangesHeld() {
        let mib: Int64 = 1 << 20
        let id = mount.put("http://h/a.iso", state: .downloading) {
            $0.view.total = 10 * mib + 5
            $0.view.downloaded = 4 * mib + 5
            // Pieces 0, 5 (not 6: one byte short), and the short last piece 10.
            $0.held = ByteRanges([0..<(mib + 100), 5 * mib..<(7 * mib - 1), 10 * mib..<(10 * mib + 5)])
        }
        let status = result("aria2.tellStatus", [gid(id)]).objectValue ?? [:]
        XCTAssertEqual(status["numPieces"], .string("11"))
        XCTAssertEqual(status["bitfield"], .string("8420"))
        XCTAssertEqual(mount.rangesRead, [id])
        _ = result("aria2.tellStatus", [gid(id), .array([.string("gid"), .string("completedLength")])])
        XCTAssertEqual(mount.rangesRead, [id], "ranges are read only when bitfield is asked for")
    }

    func test_completedFileIsInFilesUnderItsFolder() {
        let id = mount.put("http://h/a.iso", state: .completed) {
            $0.view.folder = "isos"
            $0.view.downloaded = 3_000_000
            $0.view.total = 3_000_000
        }
        let status = result("aria2.tellStatus", [gid(id)]).objectValue ?? [:]
        XCTAssertEqual(status["dir"], .string("/home/u/dl/files/isos"))
        XCTAssertEqual(status["files"]?.arrayValue?.first?.objectValue?["path"], .string("/home/u/dl/files/isos/a.iso"))
        XCTAssertEqual(status["bitfield"], .string("e0"), "as aria2c shows 3 pieces held")
    }

    func test_unknownTotalHasNoPiecesNorBitfield() {
        let id = mount.put("http://h/a", state: .downloading) { $0.view.downloaded = 5_000_000 }
        let status = result("aria2.tellStatus", [gid(id)]).objectValue ?? [:]
        XCTAssertEqual(status["totalLength"], .string("0"))
        XCTAssertEqual(status["numPieces"], .string("0"))
        XCTAssertNil(status["bitfield"])
    }

    func test_urisNameTheLiveMirrors() {
        let id = mount.put("http://h/a.iso", state: .downloading) {
            $0.mirrors = ["http://m1/a.iso", "http://m2/a.iso"]
            $0.dropped = ["http://m1/a.iso"]
            $0.view.attempts = 1
        }
        XCTAssertEqual(result("aria2.getUris", [gid(id)]), .array([
            .object(["uri": .string("http://h/a.iso"), "status": .string("used")]),
            .object(["uri": .string("http://m2/a.iso"), "status": .string("used")]),
        ]))
        let queued = mount.put("http://h/b.iso")
        XCTAssertEqual(result("aria2.getUris", [gid(queued)]), .array([
            .object(["uri": .string("http://h/b.iso"), "status": .string("waiting")])]))
    }

    func test_getFilesAndGetServers() {
        let id = mount.put("http://h/a.iso", state: .downloading) { $0.view.bytesPerSecond = 2048 }
        XCTAssertEqual(result("aria2.getFiles", [gid(id)]).arrayValue?.first?.objectValue?["index"], .string("1"))
        XCTAssertEqual(result("aria2.getServers", [gid(id)]), .array([.object([
            "index": .string("1"),
            "servers": .array([.object(["uri": .string("http://h/a.iso"), "currentUri": .string("http://h/a.iso"),
                                        "downloadSpeed": .string("2048")])]),
        ])]))
        let waiting = mount.put("http://h/b.iso")
        XCTAssertEqual(failure("aria2.getServers", [gid(waiting)]).message, "No active download for GID#\(Aria2GID.text(waiting))")
    }

    func test_keysChooseTheFields() {
        let id = mount.put("http://h/a.iso")
        XCTAssertEqual(result("aria2.tellStatus", [gid(id), .array([.string("gid"), .string("bogus")])]),
                       .object(["gid": gid(id)]))
    }

    func test_unknownGIDIsNotFound() {
        let error = failure("aria2.tellStatus", [.string("000000000000000a")])
        XCTAssertEqual(error.code, 1)
        XCTAssertEqual(error.message, "GID 000000000000000a is not found")
        XCTAssertEqual(failure("aria2.tellStatus", [.string("zz")]).message, "Invalid GID zz")
    }

    func test_globalStatCountsAndSpeed() {
        mount.put("http://h/a", state: .downloading) { $0.view.bytesPerSecond = 1024 }
        mount.put("http://h/b", state: .queued)
        mount.put("http://h/c", state: .paused)
        mount.put("http://h/d", state: .failed)
        XCTAssertEqual(result("aria2.getGlobalStat"), .object([
            "downloadSpeed": .string("1024"), "uploadSpeed": .string("0"), "numActive": .string("1"),
            "numWaiting": .string("2"), "numStopped": .string("1"), "numStoppedTotal": .string("1"),
        ]))
    }

    func test_speedIsReadBackFromTheMountsUnits() {
        let id = mount.put("http://h/a", state: .downloading) { $0.view.bytesPerSecond = 11.8 * 1_048_576 }
        XCTAssertEqual(result("aria2.tellStatus", [gid(id), .array([.string("downloadSpeed")])]),
                       .object(["downloadSpeed": .string(String(Int64(11.8 * 1_048_576)))]))
    }
}
