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

    func test_R18_splitCountTakesPlainDigitsFromOneToSixteen() {
        XCTAssertEqual(TaskOptions.splitRange, 1...16)
        XCTAssertEqual((1...16).map { TaskOptions.splitCount(String($0)) }, (1...16).map { $0 })
        XCTAssertEqual(TaskOptions.splitCount("016"), 16)
        for text in ["", "0", "17", "-3", "+3", "3.0", " 3", "3 ", "three", "३", "18446744073709551617"] {
            XCTAssertNil(TaskOptions.splitCount(text), text.debugDescription)
        }
    }
}
