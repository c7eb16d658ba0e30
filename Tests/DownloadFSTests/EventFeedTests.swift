import XCTest
@testable import DownloadFS

/// `MOUNT/events` readiness as poll(2) sees it (R24). Reads need a FUSE
/// request and are checked by tests/integration/test_events.py; what a read
/// returns is `EventBacklog`'s (DownloadFSCoreTests).
final class EventFeedTests: XCTestCase {
    func test_R24_aReaderIsReadyOnlyOnceALineIsPublishedAfterItOpened() {
        let feed = EventFeed()
        feed.publish(["1.000 1 added before"])
        let reader = feed.open()
        XCTAssertEqual(feed.poll(reader, waiter: nil), [])
        feed.publish(["1.001 1 queued before"])
        XCTAssertEqual(feed.poll(reader, waiter: nil), .readable)
        let late = feed.open()
        XCTAssertEqual(feed.poll(late, waiter: nil), [])
        feed.publish([])
        XCTAssertEqual(feed.poll(late, waiter: nil), [])
    }

    func test_R24_theFeedIsFollowedWhileAReaderIsOpen() {
        let feed = EventFeed()
        XCTAssertFalse(feed.isFollowed)
        let first = feed.open(), second = feed.open()
        XCTAssertTrue(feed.isFollowed)
        feed.close(first)
        XCTAssertTrue(feed.isFollowed)
        feed.close(second)
        XCTAssertFalse(feed.isFollowed)
        // Lines published while no one reads are not kept for the next reader.
        feed.publish(["1.000 1 added a"])
        XCTAssertEqual(feed.poll(feed.open(), waiter: nil), [])
    }

    /// At unmount a reader is ready: its read gets end of file.
    func test_R24_anEndedFeedIsReadyAndIgnoresLaterLines() {
        let feed = EventFeed()
        let reader = feed.open()
        feed.end()
        XCTAssertEqual(feed.poll(reader, waiter: nil), .readable)
        feed.publish(["1.000 1 added a"])
        XCTAssertEqual(feed.poll(reader, waiter: nil), .readable)
    }

    /// A closed or unknown reader is never made to wait.
    func test_R24_anUnknownReaderIsReady() {
        let feed = EventFeed()
        let reader = feed.open()
        feed.close(reader)
        XCTAssertEqual(feed.poll(reader, waiter: nil), .readable)
    }
}
