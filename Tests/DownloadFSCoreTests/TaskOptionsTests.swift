import Foundation
import XCTest
@testable import DownloadFSCore

/// R10, R50: a task's options are stored as JSON in the catalog, so what an
/// older downloadfs wrote must still decode after a field is added.
final class TaskOptionsTests: XCTestCase {
    private func decode(_ json: String) throws -> TaskOptions {
        try JSONDecoder().decode(TaskOptions.self, from: Data(json.utf8))
    }

    /// Options as they were stored before `split=` (R18) existed.
    func test_R50_optionsStoredBeforeSplitStillDecodeWithoutOne() throws {
        let plain = try decode(#"{"headers":[]}"#)
        XCTAssertEqual(plain, TaskOptions())
        XCTAssertNil(plain.split)

        let sha = String(repeating: "ab", count: 32)
        let full = try decode("""
            {"out":"a.iso","headers":["A: b"],"checksum":{"algorithm":"sha-256","hex":"\(sha)"},"maxDownloadLimit":1024}
            """)
        XCTAssertEqual(full, TaskOptions(out: "a.iso", headers: ["A: b"],
                                         checksum: Checksum(algorithm: .sha256, hex: sha), maxDownloadLimit: 1024))
        XCTAssertNil(full.split)
    }

    func test_R18_splitSurvivesEncodeAndDecode() throws {
        let options = TaskOptions(out: "x", split: 7)
        let back = try JSONDecoder().decode(TaskOptions.self, from: try JSONEncoder().encode(options))
        XCTAssertEqual(back, options)
        XCTAssertEqual(back.split, 7)
    }

    /// R19: mirrors are stored with the options; options of a task with one
    /// URL are stored as before (no key), and options stored before decode.
    func test_R19_mirrorsSurviveEncodeAndDecodeAndAreAbsentWithoutAny() throws {
        let options = TaskOptions(out: "x", mirrors: ["https://m1/x", "ftp://m2/x"])
        let back = try JSONDecoder().decode(TaskOptions.self, from: try JSONEncoder().encode(options))
        XCTAssertEqual(back.mirrors, ["https://m1/x", "ftp://m2/x"])
        XCTAssertEqual(back, options)
        let plain = String(decoding: try JSONEncoder().encode(TaskOptions(out: "x")), as: UTF8.self)
        XCTAssertFalse(plain.contains("mirrors"), plain)
        XCTAssertNil(try decode(#"{"headers":[],"split":3}"#).mirrors)
    }

    func test_R18_splitCountTakesPlainDigitsFromOneToSixteen() {
        XCTAssertEqual(TaskOptions.splitRange, 1...16)
        XCTAssertEqual((1...16).map { TaskOptions.splitCount(String($0)) }, (1...16).map { $0 })
        XCTAssertEqual(TaskOptions.splitCount("016"), 16)
        for text in ["", "0", "17", "-3", "+3", "3.0", " 3", "3 ", "three", "३", "18446744073709551617"] {
            XCTAssertNil(TaskOptions.splitCount(text), text.debugDescription)
        }
    }

    // The rare connection options (R10) are boxed: a task without them is
    // `TaskOptions()` again once they are cleared (the catalog stores no JSON
    // for it), and the stored JSON keeps each option as a key of its own.

    func test_R10_clearedRareOptionsLeaveTheDefault() {
        var options = TaskOptions()
        options.referer = "*"
        options.httpPassword = "s3cr3t"
        XCTAssertNotEqual(options, TaskOptions())
        XCTAssertEqual(options.referer, "*")
        options.referer = nil
        options.httpPassword = nil
        XCTAssertEqual(options, TaskOptions())
        XCTAssertLessThan(MemoryLayout<TaskOptions>.size, 120, "six optional fields would be 90 bytes more")
    }

    func test_R10_theStoredJSONHasAFlatKeyPerOptionAndRoundTrips() throws {
        let options = TaskOptions(out: "a.iso", headers: ["X: y"], split: 3, referer: "http://r/", userAgent: "ua",
                                  httpUser: "u", httpPassword: "p", proxy: "http://p:3128")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(options)) as? [String: Any]
        XCTAssertEqual(Set(json?.keys ?? [:].keys),
                       ["out", "headers", "split", "referer", "userAgent", "httpUser", "httpPassword", "proxy"])
        XCTAssertEqual(try JSONDecoder().decode(TaskOptions.self, from: JSONEncoder().encode(options)), options)
        let old = Data(#"{"headers":[],"out":"b.bin"}"#.utf8)
        XCTAssertEqual(try JSONDecoder().decode(TaskOptions.self, from: old), TaskOptions(out: "b.bin"),
                       "a row stored before these options decodes")
    }
}
