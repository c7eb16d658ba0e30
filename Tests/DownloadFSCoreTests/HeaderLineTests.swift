import XCTest
@testable import DownloadFSCore

/// R52: response header lines as the engine reads them (names lowercased,
/// values trimmed of spaces and tabs only).
final class HeaderLineTests: XCTestCase {
    private func parse(_ line: String) -> HeaderLine? {
        Array(line.utf8).withUnsafeBytes { HeaderLine.parse($0) }
    }

    func test_R52_statusLinesStartANewResponse() {
        XCTAssertEqual(parse("HTTP/1.1 200 OK\r\n"), .statusLine)
        XCTAssertEqual(parse("HTTP/2 302\r\n"), .statusLine)
    }

    func test_R52_namesAreLowercasedAndValuesTrimmed() {
        XCTAssertEqual(parse("Content-Length: 65536\r\n"), .field(name: "content-length", value: "65536"))
        XCTAssertEqual(parse("ETag:\t \"abc\" \t\r\n"), .field(name: "etag", value: "\"abc\""))
        XCTAssertEqual(parse("X-Empty:\r\n"), .field(name: "x-empty", value: ""))
        XCTAssertEqual(parse("X-Bare:value\n"), .field(name: "x-bare", value: "value"))
    }

    func test_R52_aValueKeepsItsInnerColonsAndNonASCII() {
        XCTAssertEqual(parse("Location: http://h:8080/a\r\n"), .field(name: "location", value: "http://h:8080/a"))
        XCTAssertEqual(parse("Content-Disposition: attachment; filename=\"ä.bin\"\r\n"),
                       .field(name: "content-disposition", value: "attachment; filename=\"ä.bin\""))
    }

    func test_R52_otherLinesAreNothing() {
        XCTAssertNil(parse("\r\n"))
        XCTAssertNil(parse(""))
        XCTAssertNil(parse("no colon here\r\n"))
    }

    func test_R55_invalidUTF8IsRepairedNotTrusted() {
        let bytes: [UInt8] = [0x58, 0xFF, 0x3A, 0x20, 0xC3, 0x0D, 0x0A]
        XCTAssertEqual(bytes.withUnsafeBytes { HeaderLine.parse($0) }, .field(name: "x\u{FFFD}", value: "\u{FFFD}"))
    }

    func test_R10_trimmingKnowsOnlySpacesAndTabs() {
        XCTAssertEqual(" \t a b \t ".trimmingSpacesAndTabs(), "a b")
        XCTAssertEqual("\u{00A0}x\u{00A0}".trimmingSpacesAndTabs(), "\u{00A0}x\u{00A0}")
        XCTAssertEqual("  ".trimmingSpacesAndTabs(), "")
        XCTAssertEqual("xä ".dropFirst().trimmingSpacesAndTabs(), "ä")
    }
}
