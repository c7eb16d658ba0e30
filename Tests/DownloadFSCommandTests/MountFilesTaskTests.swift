import CLinux
import DownloadFSCore
import Foundation
import Glibc
import RPCCore
import XCTest

@testable import downloadfs

/// `MountFiles.task` against a tree on disk shaped like a mount's
/// `queue/<id>/`, its attributes set by hand: the paths a daemon of today
/// never takes (no `report` attribute: an older daemon, or more than the
/// kernel passes) are reached here, with the same system calls as on a
/// mount.
final class MountFilesTaskTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "mountfiles-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/queue/7", withIntermediateDirectories: true)
        let probe = clinux_set_xattr(root, "user.probe", "x", 1)
        if probe != 0 && (errno == ENOTSUP || errno == EOPNOTSUPP) {
            throw XCTSkip("\(root)'s filesystem keeps no user extended attributes")
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    private func set(_ name: String, _ value: String, on relative: String = "queue/7") throws {
        let bytes = Array(value.utf8)
        guard clinux_set_xattr(root + "/" + relative, name, bytes, bytes.count) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    private var files: MountFiles { MountFiles(path: root) }

    func testWithoutTheReportTheThreeAttributesAreAskedOneByOne() throws {
        try set(TaskDirectoryNames.statusAttribute, "state: downloading\n")
        try set(TaskDirectoryNames.mirrorsAttribute, "http://a.example/x\nhttp://b.example/x\n")
        try set(TaskDirectoryNames.rangesAttribute, "0-100,200-300")
        let task = try XCTUnwrap(try files.task(7, mirrors: true, ranges: true))
        XCTAssertEqual(task.status, "state: downloading\n")
        XCTAssertEqual(task.mirrors, ["http://a.example/x", "http://b.example/x"])
        XCTAssertEqual(task.ranges, ByteRanges([0..<100, 200..<300]))
    }

    func testWithoutAnyAttributeTheStatusIsReadFromItsFile() throws {
        try Data("state: queued\n".utf8).write(to: URL(fileURLWithPath: root + "/queue/7/status"))
        let task = try XCTUnwrap(try files.task(7, mirrors: true, ranges: true))
        XCTAssertEqual(task, MountedTask(status: "state: queued\n", mirrors: [], ranges: nil))
    }

    func testTheReportIsTakenWhenThereAndOnlyWhatWasAskedIsKept() throws {
        // The single attributes say otherwise: what is returned must come from the report.
        try set(TaskDirectoryNames.statusAttribute, "state: old\n")
        let report = TaskReportAttribute.joined(status: Array("state: paused\n".utf8),
                                                mirrors: Array("http://m.example/x\n".utf8),
                                                ranges: Array("0-10".utf8))
        try set(TaskDirectoryNames.reportAttribute, String(decoding: report, as: UTF8.self))
        XCTAssertEqual(try files.task(7, mirrors: true, ranges: true),
                       MountedTask(status: "state: paused\n", mirrors: ["http://m.example/x"], ranges: ByteRanges([0..<10])))
        XCTAssertEqual(try files.task(7, mirrors: false, ranges: true),
                       MountedTask(status: "state: paused\n", mirrors: [], ranges: ByteRanges([0..<10])))
        // Only the status asked: its own attribute, one request as before.
        XCTAssertEqual(try files.task(7, mirrors: false, ranges: false), MountedTask(status: "state: old\n"))
    }

    func testAReportNotOfThreePartsFallsBackToTheSingleAttributes() throws {
        try set(TaskDirectoryNames.reportAttribute, "state: downloading\n")
        try set(TaskDirectoryNames.statusAttribute, "state: downloading\n")
        try set(TaskDirectoryNames.rangesAttribute, "0-5")
        XCTAssertEqual(try files.task(7, mirrors: true, ranges: true),
                       MountedTask(status: "state: downloading\n", mirrors: [], ranges: ByteRanges([0..<5])))
    }

    func testAGoneTaskIsNil() throws {
        XCTAssertNil(try files.task(8, mirrors: true, ranges: true))
        XCTAssertNil(try files.task(8, mirrors: false, ranges: false))
    }
}
