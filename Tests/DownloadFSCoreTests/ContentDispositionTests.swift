import XCTest
@testable import DownloadFSCore

/// R17: the server's Content-Disposition, filename* first.
final class ContentDispositionTests: XCTestCase {
    func test_R17_quotedFilename() {
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename=\"report.pdf\""), "report.pdf")
    }

    func test_R17_tokenFilename() {
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename=report.pdf"), "report.pdf")
        XCTAssertEqual(ContentDisposition.filename(from: "attachment;filename=report.pdf ; size=3"), "report.pdf")
    }

    func test_R17_quotedStringEscapes() {
        XCTAssertEqual(ContentDisposition.filename(from: #"attachment; filename="a \"quoted\" \\ name.txt""#),
                       #"a "quoted" \ name.txt"#)
        XCTAssertEqual(ContentDisposition.filename(from: #"attachment; filename="semi;colon.txt"; x=1"#), "semi;colon.txt")
    }

    func test_R17_filenameStarUTF8() {
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename*=UTF-8''%e2%82%ac%20rates.txt"), "€ rates.txt")
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename*=utf-8'en'na%C3%AFve.txt"), "naïve.txt")
    }

    func test_R17_filenameStarISO88591() {
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename*=iso-8859-1''caf%E9.txt"), "café.txt")
    }

    func test_R17_filenameStarPreferredInEitherOrder() {
        XCTAssertEqual(ContentDisposition.filename(
            from: "attachment; filename=\"fallback.txt\"; filename*=UTF-8''real.txt"), "real.txt")
        XCTAssertEqual(ContentDisposition.filename(
            from: "attachment; filename*=UTF-8''real.txt; filename=\"fallback.txt\""), "real.txt")
    }

    func test_R17_badFilenameStarFallsBackToFilename() {
        XCTAssertEqual(ContentDisposition.filename(
            from: "attachment; filename*=KOI8-R''%F0; filename=\"plain.txt\""), "plain.txt")
        XCTAssertEqual(ContentDisposition.filename(
            from: "attachment; filename*=UTF-8''%FF; filename=\"plain.txt\""), "plain.txt")
        XCTAssertEqual(ContentDisposition.filename(
            from: "attachment; filename*=nonsense; filename=\"plain.txt\""), "plain.txt")
    }

    func test_R17_parameterNamesAreCaseInsensitive() {
        XCTAssertEqual(ContentDisposition.filename(from: "ATTACHMENT; FILENAME=\"X.TXT\""), "X.TXT")
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; FileName*=UTF-8''y.txt"), "y.txt")
    }

    func test_R17_noFilename() {
        XCTAssertNil(ContentDisposition.filename(from: "inline"))
        XCTAssertNil(ContentDisposition.filename(from: "attachment"))
        XCTAssertNil(ContentDisposition.filename(from: "attachment; filename=\"\""))
        XCTAssertNil(ContentDisposition.filename(from: ""))
        XCTAssertNil(ContentDisposition.filename(from: "attachment; name=\"field\""))
    }

    func test_R55_hostileNamesReturnedRawForSanitiseToHandle() {
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename=\"../../etc/passwd\""), "../../etc/passwd")
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd"),
                       "../../etc/passwd")
        XCTAssertEqual(FileName.sanitize(ContentDisposition.filename(from: "attachment; filename=\"/etc/passwd\"")!),
                       "_etc_passwd")
    }

    func test_R17_unterminatedQuoteTakesTheRest() {
        XCTAssertEqual(ContentDisposition.filename(from: "attachment; filename=\"open.txt"), "open.txt")
    }
}
