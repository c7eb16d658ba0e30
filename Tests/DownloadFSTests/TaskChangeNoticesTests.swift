import DownloadFSCore
import Foundation
import FuseKit
import XCTest
@testable import DownloadFS

/// R7: every change that makes a name or attributes the kernel may cache
/// wrong is announced, and nothing is announced for changes it cannot see.
final class TaskChangeNoticesTests: XCTestCase {
    private func task(_ id: Int64, _ state: TaskState = .downloading, name: String = "a.iso",
                      downloaded: Int64 = 0) -> DownloadTask {
        let url = "https://example.org/\(name)"
        var task = DownloadTask(url: url, normalizedURL: url, options: TaskOptions(), name: name,
                                addedAt: Date(timeIntervalSince1970: 1_800_000_000), position: id)
        task.id = id
        task.state = state
        task.downloaded = downloaded
        return task
    }

    private let queue = NodeID.queue.inode
    private let files = NodeID.files.inode

    func test_R7_progressAloneAnnouncesNothing() {
        let change = TaskChangeNotices(old: task(3, downloaded: 10), new: task(3, downloaded: 20 << 20))
        XCTAssertEqual(change.notices, [])
        XCTAssertFalse(change.queueListingChanged)
        XCTAssertFalse(change.filesListingChanged)
        XCTAssertEqual(TaskChangeNotices(old: task(3, .queued), new: task(3, .paused)).notices, [])
    }

    func test_R7_aNewTaskChangesOnlyTheQueueListing() {
        let change = TaskChangeNotices(old: nil, new: task(3, .queued))
        XCTAssertEqual(change.notices, [.attributes(queue)])
        XCTAssertTrue(change.queueListingChanged)
        XCTAssertFalse(change.filesListingChanged)
    }

    func test_R7_R32_aRemovedTaskForgetsEveryNameItHad() {
        let change = TaskChangeNotices(old: task(3, .completed, name: "a.iso"), new: nil)
        let dir = NodeID.taskDir(3).inode
        XCTAssertEqual(change.notices, [
            .deleted(parent: dir, child: NodeID.taskStatus(3).inode, name: "status"),
            .deleted(parent: dir, child: NodeID.taskURL(3).inode, name: "url"),
            .deleted(parent: dir, child: NodeID.taskCtl(3).inode, name: "ctl"),
            .deleted(parent: dir, child: NodeID.taskLog(3).inode, name: "log"),
            .deleted(parent: dir, child: NodeID.taskWait(3).inode, name: "wait"),
            .deleted(parent: dir, child: NodeID.taskData(3).inode, name: "a.iso"),
            .deleted(parent: queue, child: dir, name: "3"),
            .deleted(parent: files, child: NodeID.finished(3).inode, name: "a.iso"),
            .attributes(queue), .attributes(files),
        ])
        XCTAssertTrue(change.queueListingChanged)
        XCTAssertTrue(change.filesListingChanged)
    }

    /// R34: a forgotten task's file stays in files/; the kernel only drops
    /// the name's tie to the task's inode, and no watcher sees it go.
    func test_R34_aForgottenTaskKeepsItsFilesEntry() {
        let change = TaskChangeNotices(old: task(3, .completed, name: "a.iso"), new: nil, forgotten: true)
        XCTAssertTrue(change.notices.contains(.entry(parent: files, name: "a.iso")))
        XCTAssertFalse(change.notices.contains { if case .deleted(files, _, _) = $0 { true } else { false } })
        XCTAssertTrue(change.queueListingChanged)
        XCTAssertFalse(change.filesListingChanged)
    }

    func test_R7_anUnfinishedRemovedTaskLeavesFilesAlone() {
        let change = TaskChangeNotices(old: task(4, .downloading), new: nil)
        XCTAssertFalse(change.notices.contains { if case .deleted(files, _, _) = $0 { true } else { false } })
        XCTAssertFalse(change.notices.contains(.attributes(files)))
        XCTAssertFalse(change.filesListingChanged)
    }

    func test_R7_R40_aCompletedTaskShowsUpInFiles() {
        let change = TaskChangeNotices(old: task(5, .verifying), new: task(5, .completed))
        XCTAssertEqual(change.notices, [.contents(NodeID.taskData(5).inode), .attributes(files)])
        XCTAssertTrue(change.filesListingChanged)
        XCTAssertFalse(change.queueListingChanged)
    }

    func test_R17_aNameFromTheServerForgetsTheOldDataName() {
        let change = TaskChangeNotices(old: task(6, name: "download"), new: task(6, name: "ubuntu.iso"))
        XCTAssertEqual(change.notices, [
            .deleted(parent: NodeID.taskDir(6).inode, child: NodeID.taskData(6).inode, name: "download"),
        ])
        XCTAssertFalse(change.filesListingChanged)
    }

    func test_R40_aRenameInFilesForgetsBothOldNames() {
        let change = TaskChangeNotices(old: task(7, .completed, name: "a.bin"), new: task(7, .completed, name: "b.bin"))
        XCTAssertEqual(change.notices, [
            .deleted(parent: NodeID.taskDir(7).inode, child: NodeID.taskData(7).inode, name: "a.bin"),
            .deleted(parent: files, child: NodeID.finished(7).inode, name: "a.bin"),
            .attributes(files),
        ])
    }

    func test_R7_aTaskNoLongerCompletedLeavesFilesWithItsPages() {
        let change = TaskChangeNotices(old: task(8, .completed), new: task(8, .failed))
        XCTAssertEqual(change.notices, [
            .contents(NodeID.taskData(8).inode),
            .deleted(parent: files, child: NodeID.finished(8).inode, name: "a.iso"),
            .contents(NodeID.finished(8).inode),
            .attributes(files),
        ])
    }

    func test_R23_aDataFileNamedLikeAFixedFileIsForgottenUnderItsDirectoryName() {
        let dir = NodeID.taskDir(9).inode
        let removed = TaskChangeNotices(old: task(9, name: "status"), new: nil)
        XCTAssertTrue(removed.notices.contains(.deleted(parent: dir, child: NodeID.taskData(9).inode, name: "status (1)")))
        XCTAssertFalse(removed.notices.contains(.deleted(parent: dir, child: NodeID.taskData(9).inode, name: "status")))
        let renamed = TaskChangeNotices(old: task(9, name: "log"), new: task(9, name: "b.iso"))
        XCTAssertEqual(renamed.notices, [.deleted(parent: dir, child: NodeID.taskData(9).inode, name: "log (1)")])
        // `ctl` and `ctl (1)` are one name in queue/9/: still there, nothing to forget.
        let same = TaskChangeNotices(old: task(9, name: "ctl"), new: task(9, name: "ctl (1)"))
        XCTAssertEqual(same.notices, [])
    }
}
