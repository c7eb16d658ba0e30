import XCTest
@testable import DownloadFSCore

/// R51, SPEC §9: finished files are flushed in groups, by size or deadline.
final class FlushGroupPolicyTests: XCTestCase {
    private let policy = FlushGroupPolicy(size: 4, deadline: 0.010)

    func test_nothingWaitingSleeps() {
        XCTAssertEqual(policy.decide(waiting: 0, waited: 5), .idle)
        XCTAssertEqual(policy.decide(waiting: 0, waited: 5, draining: true), .idle)
    }

    func test_aGroupNotYetFullWaitsOutTheRestOfItsDeadline() {
        guard case .flushIn(let seconds) = policy.decide(waiting: 1, waited: 0.004) else {
            return XCTFail("a lone file flushed before its deadline")
        }
        XCTAssertEqual(seconds, 0.006, accuracy: 1e-9)
        XCTAssertEqual(policy.decide(waiting: 3, waited: 0), .flushIn(0.010))
    }

    func test_aFullGroupFlushesAtOnce() {
        XCTAssertEqual(policy.decide(waiting: 4, waited: 0), .flushNow)
        XCTAssertEqual(policy.decide(waiting: 40, waited: 0), .flushNow)
    }

    func test_theDeadlineFlushesWhatWaits() {
        XCTAssertEqual(policy.decide(waiting: 1, waited: 0.010), .flushNow)
        XCTAssertEqual(policy.decide(waiting: 2, waited: 3), .flushNow)
    }

    /// At shutdown nothing waits for company (R50: an unmount finishes what it can).
    func test_drainingFlushesAtOnce() {
        XCTAssertEqual(policy.decide(waiting: 1, waited: 0, draining: true), .flushNow)
    }

    /// The engine's last transfer ended: no file can come to share the flush.
    func test_withNoDownloadLeftWhatWaitsFlushesAtOnce() {
        XCTAssertEqual(policy.decide(waiting: 1, waited: 0, noneDownloading: true), .flushNow)
        XCTAssertEqual(policy.decide(waiting: 0, waited: 0, noneDownloading: true), .idle)
    }

    func test_aGroupOfOneFlushesEachFileAlone() {
        let alone = FlushGroupPolicy(size: 1, deadline: 1)
        XCTAssertEqual(alone.decide(waiting: 1, waited: 0), .flushNow)
        XCTAssertEqual(FlushGroupPolicy(size: 0, deadline: -1), FlushGroupPolicy(size: 1, deadline: 0))
    }

    func test_aGroupIsFlushedWholeOnlyWhileLittleIsDirty() {
        let limit = FlushGroupPolicy.wholeFilesystemDirtyLimit
        XCTAssertEqual(policy.method(dirtyBytes: 0), .wholeFilesystem)
        XCTAssertEqual(policy.method(dirtyBytes: limit), .wholeFilesystem)
        XCTAssertEqual(policy.method(dirtyBytes: limit + 1), .eachFile, "a writer beside: syncfs would write its data too")
        XCTAssertEqual(policy.method(dirtyBytes: nil), .eachFile, "unknown is not little")
    }

    func test_dirtyBytesAreReadFromMeminfo() {
        let meminfo = """
            MemTotal:        8025424 kB
            Dirty:              3948 kB
            Writeback:             0 kB
            """
        XCTAssertEqual(MemoryInfo.dirtyBytes(inMeminfo: meminfo), 3948 * 1024)
        XCTAssertNil(MemoryInfo.dirtyBytes(inMeminfo: "MemTotal: 1 kB\n"))
        XCTAssertNil(MemoryInfo.dirtyBytes(inMeminfo: "Dirty: many kB\n"))
        XCTAssertNil(MemoryInfo.dirtyBytes(inMeminfo: "Dirty: 4 MB\n"))
    }
}
