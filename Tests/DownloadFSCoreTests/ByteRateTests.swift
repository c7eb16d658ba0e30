import XCTest
@testable import DownloadFSCore

/// R1, R10, R30: RATE values.
final class ByteRateTests: XCTestCase {
    func test_R1_plainBytesPerSecond() {
        XCTAssertEqual(ByteRate.parse("100"), 100)
        XCTAssertEqual(ByteRate.parse("0"), 0)
    }

    func test_R1_unitsAre1024BasedInEverySpelling() {
        for text in ["500K", "500k", "500KB", "500KiB", "500kib", "500K/s", "500KB/s", "500KiB/s"] {
            XCTAssertEqual(ByteRate.parse(text), 500 * 1024, text)
        }
        XCTAssertEqual(ByteRate.parse("2M"), 2 * 1024 * 1024)
        XCTAssertEqual(ByteRate.parse("2MB"), 2 * 1024 * 1024)
        XCTAssertEqual(ByteRate.parse("1G"), 1024 * 1024 * 1024)
        XCTAssertEqual(ByteRate.parse("1GiB"), 1024 * 1024 * 1024)
    }

    /// `2Mb` is how a line speed in bits is written: taking it as 2 MiB/s
    /// would allow eight times what was meant, so it is refused with the fix.
    func test_R1_aLowercaseBAfterTheUnitMeansBitsAndIsRefused() {
        for text in ["2Mb", "500kb", "1gb", "2mb/s", "2Mb/S"] {
            XCTAssertThrowsError(try ByteRate.read(text), text) { error in
                XCTAssertEqual(error as? ByteRateError, .bits(text))
            }
        }
        XCTAssertEqual(ByteRateError.bits("2Mb").message,
                       "rate \"2Mb\" is in bits (a lowercase b); limits are in bytes per second: use B or no letter for bytes (2M), or divide by 8 (2 Mbit/s is 256K)")
        // Bytes, whatever the case of the unit, and KiB spelled in lowercase.
        for text in ["2MB", "2mB", "2MiB", "2mib", "2M"] {
            XCTAssertEqual(ByteRate.parse(text), 2 * 1024 * 1024, text)
        }
    }

    func test_R1_fractionalRates() {
        XCTAssertEqual(ByteRate.parse("1.5MiB"), 1_572_864)
        XCTAssertEqual(ByteRate.parse("0.5K"), 512)
        XCTAssertEqual(ByteRate.parse("1.5"), 1)
        XCTAssertEqual(ByteRate.parse("0.001K"), 1)
    }

    /// `limit 0.0001K` used to come out as 0 and remove the limit; only a zero value means none.
    func test_R30_aRateThatIsNotZeroButUnderOneBytePerSecondIsRefused() {
        for text in ["0.0001K", "0.5", "0.9B/s", "0.0000001M", "0.000000000001G", "0." + String(repeating: "0", count: 400) + "1"] {
            XCTAssertNil(ByteRate.parse(text), text)
            XCTAssertThrowsError(try ByteRate.read(text), text) { error in
                XCTAssertEqual(error as? ByteRateError, .belowSmallest(text))
            }
        }
        XCTAssertEqual(ByteRateError.belowSmallest("0.0001K").message,
                       "rate \"0.0001K\" is below the smallest limit, 1 byte/s (use 1 or more, or 0 for none)")
    }

    func test_R30_onlyAZeroValueMeansNone() throws {
        for text in ["0", "0K", "0.0", "0.000M", "00", "0B/s"] {
            XCTAssertEqual(try ByteRate.read(text), 0, text)
        }
    }

    func test_R30_unreadableRatesSaySo() {
        XCTAssertThrowsError(try ByteRate.read(" fast ")) { error in
            XCTAssertEqual(error as? ByteRateError, .unreadable("fast"))
            XCTAssertEqual((error as? ByteRateError)?.message, "bad rate \"fast\" (use e.g. 500K, 2M, 1.5MiB, or 0 for none)")
        }
    }

    func test_R1_byteSuffixes() {
        XCTAssertEqual(ByteRate.parse("100B"), 100)
        XCTAssertEqual(ByteRate.parse("100B/s"), 100)
        XCTAssertEqual(ByteRate.parse("100/s"), 100)
        XCTAssertEqual(ByteRate.parse(" 2M "), 2 * 1024 * 1024)
    }

    func test_R1_rejectsNegativeAndGarbage() {
        for text in ["", "-1", "-1K", "K", "abc", "1.", ".5", "1e3", "inf", "nan", "0x10", "1 K", "1KK", "1i", "1iB",
                     "1T", "+5", "1,5M", "99999999999G"] {
            XCTAssertNil(ByteRate.parse(text), text)
        }
    }

    // MARK: written back (R30, R31: a `ctl` shows its limit as a RATE)

    func test_R30_aRateIsWrittenInTheLargestUnitThatHoldsItWhole() {
        XCTAssertEqual(ByteRate.written(0), "0")
        XCTAssertEqual(ByteRate.written(2 << 20), "2M")
        XCTAssertEqual(ByteRate.written(500 << 10), "500K")
        XCTAssertEqual(ByteRate.written(1 << 30), "1G")
        XCTAssertEqual(ByteRate.written(3 << 30), "3G")
        XCTAssertEqual(ByteRate.written(1024 << 30), "1024G")
        XCTAssertEqual(ByteRate.written(1000), "1000")
        XCTAssertEqual(ByteRate.written(1), "1")
    }

    func test_R30_aFractionOfTheLargestUnitIsUsedWhenExact() {
        XCTAssertEqual(ByteRate.written(1_572_864), "1.5M")
        XCTAssertEqual(ByteRate.written(1_207_959_552), "1.125G")
        XCTAssertEqual(ByteRate.written(1_342_177_280), "1.25G")
        XCTAssertEqual(ByteRate.written(1536), "1.5K")
        XCTAssertEqual(ByteRate.written(1025 << 20), "1025M", "1.0009…G is not exact in three digits")
        XCTAssertEqual(ByteRate.written(1_500_000), "1500000", "1.43051…M and 1464.84…K are not exact")
        XCTAssertEqual(ByteRate.written(1_048_577), "1048577")
    }

    /// Whatever limit `read` gave, what is written reads back to it. (Above
    /// 2^53 `read` gives only what a Double holds: 2^62 - 1 is read as 2^62,
    /// so the samples are limits as `read` makes them.)
    func test_R30_everyWrittenRateReadsBackToTheSameBytes() {
        var generator = SplitMix64(seed: 30)
        var samples: [Int64] = [1, 511, 512, 1023, 1024, 1025, 65_536 + 512, Int64.max / 2, 9_000_000_000_000_000_000]
        for _ in 0..<20_000 {
            let magnitude = Int64(generator.next() % 62)
            samples.append(Int64(generator.next() % UInt64(1 << magnitude)) + 1)
            // Round numbers of a unit and fractions of one, where the fractions are written.
            let unit: Int64 = [1 << 10, 1 << 20, 1 << 30][Int(generator.next() % 3)]
            samples.append(unit * Int64(generator.next() % 5000 + 1) / 8)
        }
        for sample in samples {
            guard let bytes = ByteRate.parse(String(sample)) else { XCTFail("\(sample)"); continue }
            let text = ByteRate.written(bytes)
            XCTAssertEqual(ByteRate.parse(text), bytes, text)
        }
    }
}
