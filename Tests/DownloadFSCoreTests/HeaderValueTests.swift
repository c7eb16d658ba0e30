import XCTest
@testable import DownloadFSCore

/// R52, R53: header values — Retry-After, HTTP-dates, ETag strength.
final class HeaderValueTests: XCTestCase {
    private let reference = TestDates.utc("1994-11-06T08:49:37Z")

    func test_R53_retryAfterDeltaSeconds() {
        XCTAssertEqual(HeaderValue.retryAfter("120", now: reference), 120)
        XCTAssertEqual(HeaderValue.retryAfter(" 0 ", now: reference), 0)
    }

    func test_R53_retryAfterHTTPDate() {
        XCTAssertEqual(HeaderValue.retryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: reference), 30)
        XCTAssertEqual(HeaderValue.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now: reference), 0)
    }

    func test_R53_retryAfterGarbageIsNil() {
        for text in ["", "soon", "-5", "1.5", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            XCTAssertNil(HeaderValue.retryAfter(text, now: reference), text)
        }
    }

    func test_R52_httpDateThreeForms() {
        XCTAssertEqual(HeaderValue.httpDate("Sun, 06 Nov 1994 08:49:37 GMT"), reference)
        XCTAssertEqual(HeaderValue.httpDate("Sunday, 06-Nov-94 08:49:37 GMT"), reference)
        XCTAssertEqual(HeaderValue.httpDate("Sun Nov  6 08:49:37 1994"), reference)
    }

    func test_R52_httpDateLeapDayAndTwoDigitYears() {
        XCTAssertEqual(HeaderValue.httpDate("Thu, 29 Feb 2024 12:00:00 GMT"), TestDates.utc("2024-02-29T12:00:00Z"))
        XCTAssertNil(HeaderValue.httpDate("Thu, 29 Feb 2023 12:00:00 GMT"))
        XCTAssertEqual(HeaderValue.httpDate("Friday, 01-Jan-10 00:00:00 GMT"), TestDates.utc("2010-01-01T00:00:00Z"))
    }

    func test_R52_httpDateMalformedIsNil() {
        for text in ["", "yesterday", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
                     "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 94 08:49:37 GMT", "Sun Nov  6 08:49 1994"] {
            XCTAssertNil(HeaderValue.httpDate(text), text)
        }
    }

    func test_R52_httpDateTabsCaseAndFourDigitRFC850Years() {
        XCTAssertEqual(HeaderValue.httpDate("Sun,\t06 NOV 1994  08:49:37\tGMT"), reference)
        XCTAssertEqual(HeaderValue.httpDate(" Sunday, 06-nov-1994 08:49:37 GMT "), reference)
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT x", "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 8:49:37 GMT",
                     "Sunday, 06-Nov-94-1 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:3x GMT", "Sun, 06 Nové 1994 08:49:37 GMT",
                     "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT"] {
            XCTAssertNil(HeaderValue.httpDate(text), text)
        }
    }

    func test_R52_strongAndWeakETags() {
        XCTAssertTrue(HeaderValue.isStrongETag("\"abc\""))
        XCTAssertTrue(HeaderValue.isStrongETag("\"\""))
        XCTAssertFalse(HeaderValue.isStrongETag("W/\"abc\""))
        XCTAssertFalse(HeaderValue.isStrongETag("abc"))
        XCTAssertFalse(HeaderValue.isStrongETag("\""))
        XCTAssertFalse(HeaderValue.isStrongETag(""))
    }
}
