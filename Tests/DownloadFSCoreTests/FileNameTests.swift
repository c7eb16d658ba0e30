import XCTest
@testable import DownloadFSCore

/// R17: file names — sources in order, sanitising, collision suffixes.
final class FileNameTests: XCTestCase {
    // MARK: sanitize

    func test_R17_slashBecomesUnderscore() {
        XCTAssertEqual(FileName.sanitize("a/b/c.txt"), "a_b_c.txt")
        XCTAssertEqual(FileName.sanitize("/etc/passwd"), "_etc_passwd")
    }

    func test_R17_dotDotSlashCannotEscape() {
        XCTAssertEqual(FileName.sanitize("../../etc/passwd"), "_.._etc_passwd")
        XCTAssertEqual(FileName.sanitize(".."), "download")
        XCTAssertEqual(FileName.sanitize("."), "download")
    }

    func test_R17_allLeadingDotsDropped() {
        XCTAssertEqual(FileName.sanitize(".bashrc"), "bashrc")
        XCTAssertEqual(FileName.sanitize("...hidden.txt"), "hidden.txt")
        XCTAssertEqual(FileName.sanitize("a.b."), "a.b.")
    }

    func test_R17_NULAndControlCharactersDropped() {
        XCTAssertEqual(FileName.sanitize("a\u{0}b"), "ab")
        XCTAssertEqual(FileName.sanitize("line\nbreak\r\ttab"), "linebreaktab")
        XCTAssertEqual(FileName.sanitize("del\u{7F}c1\u{85}\u{9F}end"), "delc1end")
        XCTAssertEqual(FileName.sanitize("\u{1}.hidden"), "hidden")
    }

    func test_R17_emptyBecomesDownload() {
        XCTAssertEqual(FileName.sanitize(""), "download")
        XCTAssertEqual(FileName.sanitize("\u{0}\u{1}"), "download")
        XCTAssertEqual(FileName.sanitize("..."), "download")
    }

    func test_R17_unicodeKept() {
        XCTAssertEqual(FileName.sanitize("€ rates – 2026.txt"), "€ rates – 2026.txt")
    }

    func test_R17_longNameCutTo255BytesKeepingExtension() {
        let name = String(repeating: "x", count: 1024) + ".iso"
        let cleaned = FileName.sanitize(name)
        XCTAssertEqual(cleaned.utf8.count, 255)
        XCTAssertTrue(cleaned.hasSuffix("x.iso"))
    }

    func test_R17_cutNeverSplitsAUTF8Scalar() {
        let name = String(repeating: "€", count: 400) + ".txt"  // € is 3 bytes
        let cleaned = FileName.sanitize(name)
        XCTAssertLessThanOrEqual(cleaned.utf8.count, 255)
        XCTAssertTrue(cleaned.hasSuffix("€.txt"))
        XCTAssertEqual(cleaned.utf8.count, 4 + 3 * 83)
        XCTAssertTrue(UTF8Validation.isValid(Array(cleaned.utf8)))
        let emoji = FileName.sanitize(String(repeating: "😀", count: 100))
        XCTAssertEqual(emoji.utf8.count, 252)
    }

    func test_R17_longNameWithoutExtension() {
        XCTAssertEqual(FileName.sanitize(String(repeating: "y", count: 300)), String(repeating: "y", count: 255))
    }

    func test_R17_exactly255BytesUntouched() {
        let name = String(repeating: "z", count: 251) + ".bin"
        XCTAssertEqual(FileName.sanitize(name), name)
    }

    func test_R17_invalidUTF8BytesBecomeUnderscore() {
        XCTAssertEqual(FileName.sanitize(bytes: [0x61, 0xFF, 0x62, 0xC3]), "a_b_")
        XCTAssertEqual(FileName.sanitize(bytes: Array("caf".utf8) + [0xE9] + Array(".txt".utf8)), "caf_.txt")
        XCTAssertEqual(FileName.sanitize(bytes: Array("ok-€".utf8)), "ok-€")
        XCTAssertEqual(FileName.sanitize(bytes: [0xED, 0xA0, 0x80]), "___")
        XCTAssertEqual(FileName.sanitize(bytes: []), "download")
    }

    // MARK: from URL

    func test_R17_lastPathSegmentOfTheURL() {
        XCTAssertEqual(FileName.fromURL("https://releases.example.com/24.04/ubuntu-24.04.iso"), "ubuntu-24.04.iso")
        XCTAssertEqual(FileName.fromURL("http://h/dir/file.tar.gz?token=abc#frag"), "file.tar.gz")
        XCTAssertEqual(FileName.fromURL("ftp://user:pw@h:21/pub/f.txt"), "f.txt")
    }

    func test_R17_urlSegmentIsPercentDecoded() {
        XCTAssertEqual(FileName.fromURL("http://h/%E2%82%AC%20rates.txt"), "€ rates.txt")
        XCTAssertEqual(FileName.fromURL("http://h/a%2Fb.txt"), "a_b.txt")
        XCTAssertEqual(FileName.fromURL("http://h/100%25.txt"), "100%.txt")
        XCTAssertEqual(FileName.fromURL("http://h/bad%zz.txt"), "bad%zz.txt")
        XCTAssertEqual(FileName.fromURL("http://h/lat%E9.txt"), "lat_.txt")
        XCTAssertEqual(FileName.fromURL("http://h/nul%00.txt"), "nul.txt")
    }

    func test_R17_noSegmentGivesNil() {
        XCTAssertNil(FileName.fromURL("http://h/"))
        XCTAssertNil(FileName.fromURL("http://h"))
        XCTAssertNil(FileName.fromURL("http://h/dir/"))
        XCTAssertNil(FileName.fromURL("http://h/?q=file.txt"))
        XCTAssertNil(FileName.fromURL("http://h/%2e%2e"))
        XCTAssertNil(FileName.fromURL("not a url"))
    }

    // MARK: resolve order

    func test_R17_outComesFirst() {
        XCTAssertEqual(FileName.resolve(out: "mine.iso", contentDisposition: "attachment; filename=\"server.iso\"",
                                        finalURL: "http://h/url.iso"), "mine.iso")
    }

    func test_R17_contentDispositionBeforeURL() {
        XCTAssertEqual(FileName.resolve(out: nil, contentDisposition: "attachment; filename=\"server.iso\"",
                                        finalURL: "http://h/url.iso"), "server.iso")
    }

    func test_R17_filenameStarBeforeFilename() {
        let header = "attachment; filename=\"EURO rates.txt\"; filename*=UTF-8''%e2%82%ac%20rates.txt"
        XCTAssertEqual(FileName.resolve(out: nil, contentDisposition: header, finalURL: "http://h/x"), "€ rates.txt")
    }

    func test_R17_finalURLSegmentThenDownload() {
        XCTAssertEqual(FileName.resolve(out: nil, contentDisposition: "inline", finalURL: "http://h/a%20b.zip"), "a b.zip")
        XCTAssertEqual(FileName.resolve(out: nil, contentDisposition: nil, finalURL: "http://h/"), "download")
    }

    func test_R17_resolvedNamesAreSanitised() {
        XCTAssertEqual(FileName.resolve(out: "../x/.y", contentDisposition: nil, finalURL: "http://h/"), "_x_.y")
        XCTAssertEqual(FileName.resolve(out: nil, contentDisposition: "attachment; filename=\"../../etc/passwd\"",
                                        finalURL: "http://h/"), "_.._etc_passwd")
        XCTAssertEqual(FileName.resolve(out: nil, contentDisposition: "attachment; filename=\".bashrc\"",
                                        finalURL: "http://h/"), "bashrc")
    }

    func test_R17_sourceThatSanitisesToNothingIsSkipped() {
        XCTAssertEqual(FileName.resolve(out: "..", contentDisposition: "attachment; filename=\"...\"",
                                        finalURL: "http://h/real.bin"), "real.bin")
    }

    // MARK: collisions

    func test_R17_collisionSuffixBeforeExtension() {
        XCTAssertEqual(FileName.withCollisionSuffix("a.iso", 1), "a (1).iso")
        XCTAssertEqual(FileName.withCollisionSuffix("a", 1), "a (1)")
        XCTAssertEqual(FileName.withCollisionSuffix("a.tar.gz", 2), "a (2).tar.gz")
        XCTAssertEqual(FileName.withCollisionSuffix("ubuntu-24.04.iso", 1), "ubuntu-24.04 (1).iso")
        XCTAssertEqual(FileName.withCollisionSuffix("My Doc v1.2 final", 1), "My Doc v1.2 final (1)")
        XCTAssertEqual(FileName.withCollisionSuffix("archive.TAR.XZ", 3), "archive (3).TAR.XZ")
        XCTAssertEqual(FileName.withCollisionSuffix("a.iso", 0), "a.iso")
    }

    func test_R17_collisionSuffixKeeps255Bytes() {
        let name = String(repeating: "n", count: 251) + ".iso"
        let suffixed = FileName.withCollisionSuffix(name, 12)
        XCTAssertEqual(suffixed.utf8.count, 255)
        XCTAssertTrue(suffixed.hasSuffix("n (12).iso"))
        let wide = FileName.withCollisionSuffix(String(repeating: "€", count: 85), 1)
        XCTAssertLessThanOrEqual(wide.utf8.count, 255)
        XCTAssertTrue(wide.hasSuffix("€ (1)"))
    }

    func test_R17_uniqueCountsUpUntilFree() {
        let taken: Set = ["a.iso", "a (1).iso", "a (2).iso"]
        XCTAssertEqual(FileName.unique("a.iso", isTaken: taken.contains), "a (3).iso")
        XCTAssertEqual(FileName.unique("b.iso", isTaken: taken.contains), "b.iso")
        XCTAssertEqual(FileName.unique("a (1).iso", isTaken: taken.contains), "a (1) (1).iso")
    }
}
