import Foundation
import XCTest
@testable import DownloadFSCore

/// R24: `TIME ID EVENT NAME`, TIME in seconds since the epoch with three decimals.
final class EventLineTests: XCTestCase {
    func test_R24_timeHasExactlyThreeDecimals() {
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116.052)), "1795691116.052")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116)), "1795691116.000")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116.5)), "1795691116.500")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116.007)), "1795691116.007")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 0)), "0.000")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 0.001)), "0.001")
    }

    /// A reading stored as a double just under a millisecond shows that millisecond.
    func test_R24_timeRoundsToTheNearestMillisecond() {
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116.0519999)), "1795691116.052")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116.0524)), "1795691116.052")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: 1795691116.9996)), "1795691117.000")
    }

    func test_R24_everyMillisecondOfASecondRoundTrips() {
        for millisecond in 0..<1000 {
            let seconds = 1_795_691_116 + Double(millisecond) / 1000
            let shown = EventLine.time(Date(timeIntervalSince1970: seconds))
            XCTAssertEqual(shown, String(format: "1795691116.%03d", millisecond))
            XCTAssertEqual(Double(shown)!, seconds, accuracy: 0.0005)
        }
    }

    func test_R24_timeBeforeTheEpoch() {
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: -1.5)), "-1.500")
        XCTAssertEqual(EventLine.time(Date(timeIntervalSince1970: -0.25)), "-0.250")
    }

    func test_R24_lineIsTimeIdEventName() {
        let at = Date(timeIntervalSince1970: 1795691116.052)
        XCTAssertEqual(EventLine.line(time: at, id: 3, event: "added", name: "ubuntu-24.04.iso"),
                       "1795691116.052 3 added ubuntu-24.04.iso")
        XCTAssertEqual(EventLine.line(time: at, id: 12, event: "renamed", name: "my film (1).mkv"),
                       "1795691116.052 12 renamed my film (1).mkv")
    }

    /// NAME ends the line: spaces stay, a line break (which R17 never lets
    /// into a name) cannot make two lines.
    func test_R24_nameEndsTheLine() {
        let at = Date(timeIntervalSince1970: 1)
        let line = EventLine.line(time: at, id: 1, event: "completed", name: "  two  spaces ")
        XCTAssertEqual(line, "1.000 1 completed   two  spaces ")
        XCTAssertEqual(line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).last, "  two  spaces ")
        XCTAssertEqual(EventLine.line(time: at, id: 1, event: "added", name: "a\nb\r\nc"), "1.000 1 added abc")
    }

    func test_R24_lostLine() {
        XCTAssertEqual(EventLine.lost(time: Date(timeIntervalSince1970: 1795691116.052), count: 12_345),
                       "1795691116.052 - lost 12345")
    }

    /// Read back, what the writers above give: the door's notifications and `wait` take lines so.
    func test_R24_linesReadBack() {
        let at = Date(timeIntervalSince1970: 1)
        XCTAssertEqual(EventLine.read(Substring(EventLine.line(time: at, id: 7, event: "completed", name: " a b ") + "\n")),
                       .change(id: 7, event: "completed", name: " a b "))
        XCTAssertEqual(EventLine.read("1.000 7 removed"), .change(id: 7, event: "removed", name: ""))
        XCTAssertEqual(EventLine.read(Substring(EventLine.lost(time: at, count: 3))), .lost)
        for other in ["", "garbage", "1.000 x queued a", "1.000 0 queued a", "1.000 -3 queued a"] {
            XCTAssertEqual(EventLine.read(Substring(other)), .other, other)
        }
    }
}
