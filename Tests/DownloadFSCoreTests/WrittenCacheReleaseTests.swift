import XCTest
@testable import DownloadFSCore

/// `WrittenCacheRelease`: the durable bytes behind a download's writer leave
/// the page cache, all but the last `keep` of each range (issue 27, point 2).
final class WrittenCacheReleaseTests: XCTestCase {
    let keep = WrittenCacheRelease.keep
    let margin = WrittenCacheRelease.margin
    let mib: Int64 = 1 << 20

    func test_nothingWhileARangeIsShorterThanWhatStaysCached() {
        var release = WrittenCacheRelease()
        XCTAssertEqual(release.unread(.prefix(keep)), [])
        XCTAssertEqual(release.unread(.prefix(keep - 1)), [])
        XCTAssertEqual(release.unread(ByteRanges()), [])
        XCTAssertTrue(release.released.isEmpty)
    }

    func test_aGrowingPrefixLetsGoAllButItsLastBytes() {
        var release = WrittenCacheRelease()
        XCTAssertEqual(release.unread(.prefix(keep + 8 * mib)), [0..<8 * mib])
        // The next checkpoint: only what is new, from a folio earlier.
        XCTAssertEqual(release.unread(.prefix(keep + 20 * mib)), [8 * mib - margin..<20 * mib])
        XCTAssertEqual(release.released, .prefix(20 * mib))
    }

    func test_theSameCheckpointTwiceLetsGoNothingMore() {
        var release = WrittenCacheRelease()
        _ = release.unread(.prefix(keep + 8 * mib))
        XCTAssertEqual(release.unread(.prefix(keep + 8 * mib)), [])
    }

    func test_theMarginNeverReachesBeforeTheRange() {
        var release = WrittenCacheRelease()
        let durable = ByteRanges([100 * mib..<(100 * mib + keep + mib)])
        XCTAssertEqual(release.unread(durable), [100 * mib..<101 * mib])
        XCTAssertEqual(release.unread(ByteRanges([100 * mib..<(100 * mib + keep + 2 * mib)])),
                       [100 * mib..<102 * mib], "clamped to the range's start, not a folio before it")
    }

    func test_eachSegmentKeepsItsOwnEnd() {
        var release = WrittenCacheRelease()
        // Two connections: one far along, one just started.
        let durable = ByteRanges([0..<(keep + 4 * mib), 512 * mib..<(512 * mib + 3 * mib)])
        XCTAssertEqual(release.unread(durable), [0..<4 * mib])
        let later = ByteRanges([0..<(keep + 6 * mib), 512 * mib..<(512 * mib + keep + 5 * mib)])
        XCTAssertEqual(release.unread(later), [4 * mib - margin..<6 * mib, 512 * mib..<517 * mib])
    }

    func test_aDownloadThatStartedOverCountsAgain() {
        var release = WrittenCacheRelease()
        _ = release.unread(.prefix(keep + 30 * mib))
        // R18's fall back to one connection from zero: the durable bytes are a new, shorter prefix.
        XCTAssertEqual(release.unread(.prefix(keep + 2 * mib)), [0..<2 * mib])
        XCTAssertEqual(release.released, .prefix(2 * mib))
    }

    func test_nothingGoesWhileAReaderReads() {
        var release = WrittenCacheRelease()
        let quiet = WrittenCacheRelease.readerQuiet
        XCTAssertEqual(release.afterCheckpoint(durable: .prefix(keep + 40 * mib), readerIdle: 0.2), [])
        XCTAssertEqual(release.afterCheckpoint(durable: .prefix(keep + 60 * mib), readerIdle: quiet - 0.01), [])
        XCTAssertTrue(release.released.isEmpty, "what a reader may still read is not counted as let go")
        // The reader has gone: everything behind the writer goes at once.
        XCTAssertEqual(release.afterCheckpoint(durable: .prefix(keep + 80 * mib), readerIdle: quiet), [0..<80 * mib])
    }
}

private extension WrittenCacheRelease {
    /// A checkpoint of a file nobody has read.
    mutating func unread(_ durable: ByteRanges) -> [Range<Int64>] {
        afterCheckpoint(durable: durable, readerIdle: .infinity)
    }
}
