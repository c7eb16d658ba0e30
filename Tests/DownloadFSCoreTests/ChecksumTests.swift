import XCTest
@testable import DownloadFSCore

/// R10, R56: checksum=ALGO=HEX.
final class ChecksumTests: XCTestCase {
    func test_R10_hexLengthPerAlgorithm() {
        XCTAssertEqual(Checksum.Algorithm.md5.hexLength, 32)
        XCTAssertEqual(Checksum.Algorithm.sha1.hexLength, 40)
        XCTAssertEqual(Checksum.Algorithm.sha256.hexLength, 64)
        XCTAssertEqual(Checksum.Algorithm.sha512.hexLength, 128)
        XCTAssertEqual(Checksum(algorithm: .sha1, hex: String(repeating: "a", count: 40)).hexLength, 40)
    }

    func test_R10_algorithmNamesAreAria2sAndCaseInsensitive() {
        XCTAssertEqual(Checksum.Algorithm(name: "SHA-256"), .sha256)
        XCTAssertEqual(Checksum.Algorithm(name: "sha-1"), .sha1)
        XCTAssertEqual(Checksum.Algorithm(name: "Sha-512"), .sha512)
        XCTAssertEqual(Checksum.Algorithm(name: "MD5"), .md5)
        XCTAssertNil(Checksum.Algorithm(name: "sha256"))
        XCTAssertNil(Checksum.Algorithm(name: "crc32"))
    }

    func test_R10_hexIsStoredLowercased() throws {
        let hex = String(repeating: "AbC0", count: 16)
        let checksum = try Checksum.parse("sha-256=\(hex)").get()
        XCTAssertEqual(checksum.hex, hex.lowercased())
        XCTAssertEqual(checksum.algorithm, .sha256)
    }

    func test_R11_rejectsWrongLengthNonHexUnknownAlgorithmAndMissingEquals() {
        let cases = [
            "sha-256=" + String(repeating: "a", count: 63),
            "sha-256=" + String(repeating: "a", count: 65),
            "md5=" + String(repeating: "g", count: 32),
            "crc32=deadbeef",
            "sha-256",
            "=abc",
            "sha-1=",
        ]
        for spec in cases {
            if case .success = Checksum.parse(spec) { XCTFail("accepted \(spec)") }
        }
    }

    func test_R11_reasonNamesTheProblem() {
        guard case .failure(let error) = Checksum.parse("sha-1=abc") else { return XCTFail() }
        XCTAssertEqual(error.reason, "sha-1 digest must have 40 hex digits, not 3")
        guard case .failure(let unknown) = Checksum.parse("crc32=abc") else { return XCTFail() }
        XCTAssertEqual(unknown.reason, "unknown algorithm \"crc32\" (use sha-256, sha-1, sha-512 or md5)")
    }
}
