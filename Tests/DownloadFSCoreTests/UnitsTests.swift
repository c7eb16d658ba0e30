import XCTest
@testable import DownloadFSCore

/// R20, R21: human units.
final class UnitsTests: XCTestCase {
    func test_R20_bytes() {
        XCTAssertEqual(Units.bytes(0), "0 B")
        XCTAssertEqual(Units.bytes(512), "512 B")
        XCTAssertEqual(Units.bytes(1023), "1023 B")
        XCTAssertEqual(Units.bytes(1024), "1.0 KiB")
        XCTAssertEqual(Units.bytes(1536), "1.5 KiB")
        XCTAssertEqual(Units.bytes(12_373_197), "11.8 MiB")
        XCTAssertEqual(Units.bytes(3_137_184_768), "2.9 GiB")
        XCTAssertEqual(Units.bytes(1_319_413_953_331), "1.2 TiB")
        XCTAssertEqual(Units.bytes(-5), "0 B")
    }

    func test_R20_bytesRoundingUpPromotesTheUnit() {
        XCTAssertEqual(Units.bytes(1_048_575), "1.0 MiB")
        XCTAssertEqual(Units.bytes(1_048_575 - 60), "1023.9 KiB")
    }

    func test_R20_speed() {
        XCTAssertEqual(Units.speed(0), "0 B/s")
        XCTAssertEqual(Units.speed(512), "512 B/s")
        XCTAssertEqual(Units.speed(1023.4), "1023 B/s")
        XCTAssertEqual(Units.speed(1023.6), "1.0 KiB/s")
        XCTAssertEqual(Units.speed(11.8 * 1_048_576), "11.8 MiB/s")
        XCTAssertEqual(Units.speed(1_073_741_824), "1.0 GiB/s")
        XCTAssertEqual(Units.speed(1_099_511_627_776), "1024.0 GiB/s")
    }

    func test_R20_speedOfNonsenseIsZero() {
        XCTAssertEqual(Units.speed(-3), "0 B/s")
        XCTAssertEqual(Units.speed(.nan), "0 B/s")
        XCTAssertEqual(Units.speed(.infinity), "0 B/s")
    }

    func test_R20_duration() {
        XCTAssertEqual(Units.duration(0), "0s")
        XCTAssertEqual(Units.duration(45), "45s")
        XCTAssertEqual(Units.duration(147), "2m27s")
        XCTAssertEqual(Units.duration(125), "2m05s")
        XCTAssertEqual(Units.duration(3600), "1h00m")
        XCTAssertEqual(Units.duration(3720), "1h02m")
        XCTAssertEqual(Units.duration(26 * 3600 + 5 * 60 + 59), "26h05m")
    }

    func test_R20_durationRoundsPartialSecondsUp() {
        XCTAssertEqual(Units.duration(0.2), "1s")
        XCTAssertEqual(Units.duration(146.01), "2m27s")
        XCTAssertEqual(Units.duration(59.5), "1m00s")
        XCTAssertEqual(Units.duration(3599.5), "1h00m")
    }

    func test_R20_durationOfNegativeOrNaNIsZero() {
        XCTAssertEqual(Units.duration(-4), "0s")
        XCTAssertEqual(Units.duration(.nan), "0s")
    }

    func test_R20_progress() {
        XCTAssertEqual(Units.progress(downloaded: 1_320_702_443, total: 3_137_184_768), "42.1%")
        XCTAssertEqual(Units.progress(downloaded: 0, total: 100), "0.0%")
        XCTAssertEqual(Units.progress(downloaded: 1, total: 3), "33.3%")
        XCTAssertEqual(Units.progress(downloaded: 2, total: 3), "66.7%")
        XCTAssertEqual(Units.progress(downloaded: 421, total: 1000), "42.1%")
        XCTAssertEqual(Units.progress(downloaded: Int64.max / 2, total: Int64.max), "50.0%")
    }

    func test_R20_progressNeverShows100BeforeDone() {
        XCTAssertEqual(Units.progress(downloaded: 9_999, total: 10_000), "99.9%")
        XCTAssertEqual(Units.progress(downloaded: 3_137_184_767, total: 3_137_184_768), "99.9%")
        XCTAssertEqual(Units.progress(downloaded: 10_000, total: 10_000), "100.0%")
    }

    func test_R20_progressUnknownTotalIsDashAndZeroTotalIsDone() {
        XCTAssertEqual(Units.progress(downloaded: 5, total: nil), "-")
        XCTAssertEqual(Units.progress(downloaded: 0, total: 0), "100.0%")
    }

    func test_R20_timestamp() {
        XCTAssertEqual(Units.timestamp(TestDates.utc("2026-11-21T05:30:12Z")), "2026-11-21T05:30:12Z")
        XCTAssertEqual(Units.timestamp(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00Z")
        XCTAssertEqual(Units.timestamp(TestDates.utc("2024-02-29T23:59:59Z")), "2024-02-29T23:59:59Z")
        XCTAssertEqual(Units.timestamp(TestDates.utc("2000-03-01T00:00:00Z")), "2000-03-01T00:00:00Z")
        XCTAssertEqual(Units.timestamp(Date(timeIntervalSince1970: -1)), "1969-12-31T23:59:59Z")
    }

    func test_R20_timestampHasNoFractionalSeconds() {
        let date = TestDates.utc("2026-11-21T05:30:12Z").addingTimeInterval(0.999)
        XCTAssertEqual(Units.timestamp(date), "2026-11-21T05:30:12Z")
    }

    func test_R20_timestampMatchesFoundationOverManyDays() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var t: Double = -2_000_000_000
        while t < 4_000_000_000 {
            let date = Date(timeIntervalSince1970: t)
            XCTAssertEqual(Units.timestamp(date), formatter.string(from: date))
            t += 7_777_777
        }
    }
}
