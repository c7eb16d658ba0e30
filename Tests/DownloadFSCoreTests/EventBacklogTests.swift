import Foundation
import XCTest
@testable import DownloadFSCore

/// R24's stream as readers see it: each from the moment it opened, every
/// line in order, whole lines, `lost N` past the limit.
final class EventBacklogTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1795691116.052)

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private func read(_ backlog: EventBacklog, _ cursor: inout EventCursor, size: Int = 4096) -> String {
        text(backlog.read(&cursor, size: size, now: now))
    }

    private func lines(_ range: Range<Int>) -> [String] { range.map { "line \($0)" } }

    func test_R24_aReaderGetsOnlyWhatIsPublishedAfterItOpened() {
        var backlog = EventBacklog()
        backlog.append(["before"])
        var cursor = backlog.cursorAtEnd()
        XCTAssertFalse(backlog.hasLines(for: cursor))
        XCTAssertEqual(read(backlog, &cursor), "")
        backlog.append(["a", "b"])
        XCTAssertTrue(backlog.hasLines(for: cursor))
        XCTAssertEqual(read(backlog, &cursor), "a\nb\n")
        XCTAssertFalse(backlog.hasLines(for: cursor))
        XCTAssertEqual(read(backlog, &cursor), "")
    }

    func test_R24_everyReaderGetsEveryLineInOrder() {
        var backlog = EventBacklog()
        var first = backlog.cursorAtEnd()
        backlog.append(lines(0..<3))
        var second = backlog.cursorAtEnd()
        backlog.append(lines(3..<5))
        XCTAssertEqual(read(backlog, &first), lines(0..<5).map { $0 + "\n" }.joined())
        XCTAssertEqual(read(backlog, &second), lines(3..<5).map { $0 + "\n" }.joined())
    }

    func test_R24_readsReturnWholeLinesThatFit() {
        var backlog = EventBacklog()
        var cursor = backlog.cursorAtEnd()
        backlog.append(["12345", "abc", "xyz"])  // 6 + 4 + 4 bytes
        XCTAssertEqual(read(backlog, &cursor, size: 11), "12345\nabc\n")
        XCTAssertEqual(read(backlog, &cursor, size: 4), "xyz\n")
    }

    /// The kernel asks for the rest of a large read only when a request
    /// came back full: one that did would wait for the next change.
    func test_R24_aRequestOverAPageIsNeverFilledToTheByte() {
        var backlog = EventBacklog()
        var cursor = backlog.cursorAtEnd()
        let line = String(repeating: "x", count: 99)  // 100 bytes with its newline
        backlog.append(Array(repeating: line, count: 200))
        let size = 8192
        let got = backlog.read(&cursor, size: size, now: now)
        XCTAssertLessThan(got.count, size)
        XCTAssertEqual(got.count, 8100)
        XCTAssertEqual(got.last, UInt8(ascii: "\n"))
        // A page or less may be filled exactly: no more requests follow it.
        var small = EventBacklog()
        var other = small.cursorAtEnd()
        small.append(Array(repeating: line, count: 50))
        XCTAssertEqual(small.read(&other, size: 4000, now: now).count, 4000)
    }

    /// bash's `read` reads a stream a byte at a time: every byte comes, in order.
    func test_R24_aReadSmallerThanALineGetsItInPieces() {
        var backlog = EventBacklog()
        var cursor = backlog.cursorAtEnd()
        backlog.append(["1795691116.052 3 added a b", "next"])
        var got = ""
        while backlog.hasLines(for: cursor) { got += read(backlog, &cursor, size: 1) }
        XCTAssertEqual(got, "1795691116.052 3 added a b\nnext\n")
        backlog.append(["abcdef"])
        XCTAssertEqual(read(backlog, &cursor, size: 4), "abcd")
        XCTAssertTrue(backlog.hasLines(for: cursor))
        backlog.append(["after"])
        // The rest of the cut line first, then whole lines.
        XCTAssertEqual(read(backlog, &cursor, size: 100), "ef\nafter\n")
        XCTAssertFalse(backlog.hasLines(for: cursor))
    }

    func test_R24_aReaderUpToTheLimitBehindLosesNothing() {
        var backlog = EventBacklog(limit: 5)
        var cursor = backlog.cursorAtEnd()
        backlog.append(lines(0..<5))
        XCTAssertEqual(read(backlog, &cursor), lines(0..<5).map { $0 + "\n" }.joined())
        backlog.append(lines(5..<10))
        XCTAssertEqual(read(backlog, &cursor, size: 7), "line 5\n")
        backlog.append(lines(10..<11))  // now 5 behind again
        XCTAssertEqual(read(backlog, &cursor), lines(6..<11).map { $0 + "\n" }.joined())
    }

    func test_R24_aReaderMoreThanTheLimitBehindIsToldWhatItLostAndGoesOnWithTheNext() {
        var backlog = EventBacklog(limit: 5)
        var slow = backlog.cursorAtEnd()
        var fast = backlog.cursorAtEnd()
        backlog.append(lines(0..<4))
        XCTAssertEqual(read(backlog, &slow, size: 7), "line 0\n")
        for n in 4..<12 {
            backlog.append(["line \(n)"])
            _ = read(backlog, &fast)
        }
        // 11 lines missed (1 through 11): more than 5.
        XCTAssertEqual(read(backlog, &slow), "1795691116.052 - lost 11\n")
        XCTAssertFalse(backlog.hasLines(for: slow))
        backlog.append(["line 12"])
        XCTAssertEqual(read(backlog, &slow), "line 12\n")
        XCTAssertEqual(read(backlog, &fast), "line 12\n")
    }

    func test_R24_lostAtTheDefaultLimitOfTenThousand() {
        var backlog = EventBacklog()
        XCTAssertEqual(backlog.limit, 10_000)
        var exact = backlog.cursorAtEnd()
        var over = backlog.cursorAtEnd()
        backlog.append(lines(0..<10_000))
        XCTAssertEqual(backlog.count, 10_000)
        XCTAssertEqual(read(backlog, &exact, size: 7), "line 0\n")
        backlog.append(["line 10000"])
        XCTAssertEqual(backlog.count, 10_000, "the ring keeps no more than the limit")
        // `exact` is 10,000 behind: everything is still there.
        var all = ""
        while backlog.hasLines(for: exact) { all += read(backlog, &exact, size: 65536) }
        XCTAssertEqual(all, lines(1..<10_001).map { $0 + "\n" }.joined())
        // `over` is 10,001 behind: lost.
        XCTAssertEqual(read(backlog, &over), "1795691116.052 - lost 10001\n")
    }

    /// A cut line's rest is the reader's own: it comes first even when the
    /// reader then turns out to have lost lines.
    func test_R24_theRestOfACutLineComesBeforeALostLine() {
        var backlog = EventBacklog(limit: 3)
        var cursor = backlog.cursorAtEnd()
        backlog.append(["abcdef"])
        XCTAssertEqual(read(backlog, &cursor, size: 2), "ab")
        backlog.append(lines(0..<4))
        XCTAssertEqual(read(backlog, &cursor), "cdef\n1795691116.052 - lost 4\n")
    }

    /// With no reader open nothing is kept, and numbering goes on.
    func test_R24_linesNoOneCanReadAreNotKept() {
        var backlog = EventBacklog()
        backlog.skip(3)
        XCTAssertEqual(backlog.count, 0)
        XCTAssertEqual(backlog.end, 3)
        var cursor = backlog.cursorAtEnd()
        backlog.append(["x", "y"])
        XCTAssertEqual(backlog.count, 2)
        backlog.forget()
        XCTAssertEqual(backlog.count, 0)
        // Reopened after the ring was emptied: the slots start over.
        cursor = backlog.cursorAtEnd()
        backlog.append(lines(0..<7))
        XCTAssertEqual(read(backlog, &cursor), lines(0..<7).map { $0 + "\n" }.joined())
    }

    /// The ring wraps many times over without mixing lines up.
    func test_R24_theRingWrapsInOrder() {
        var backlog = EventBacklog(limit: 7)
        var cursor = backlog.cursorAtEnd()
        var expected = "", got = ""
        var n = 0
        for batch in 1...40 {
            let added = lines(n..<n + batch % 7)
            n += added.count
            backlog.append(added)
            expected += added.map { $0 + "\n" }.joined()
            while backlog.hasLines(for: cursor) { got += read(backlog, &cursor, size: 20) }
        }
        XCTAssertEqual(got, expected)
    }

    func test_R24_aZeroSizeReadGetsNothingAndMovesNothing() {
        var backlog = EventBacklog()
        var cursor = backlog.cursorAtEnd()
        backlog.append(["a"])
        XCTAssertEqual(read(backlog, &cursor, size: 0), "")
        XCTAssertEqual(read(backlog, &cursor), "a\n")
    }
}
