import XCTest
@testable import DownloadFSCore

/// R52 for FTP: REST resumes; the size and the MDTM time are the validators.
final class FTPResumeTests: XCTestCase {
    private let mdtm = "Sun, 06 Nov 1994 08:49:37 GMT"

    func test_R52_ftpFreshDownloadTakesTheSize() {
        XCTAssertEqual(ResumeDecision.decideFTP(stored: StoredProgress(offset: 0), remaining: 500, modified: mdtm),
                       .append(total: 500))
        XCTAssertEqual(ResumeDecision.decideFTP(stored: StoredProgress(offset: 0), remaining: nil, modified: nil),
                       .append(total: nil))
    }

    func test_R52_ftpUnchangedFileAppends() {
        let stored = StoredProgress(offset: 100, total: 500, lastModified: mdtm)
        XCTAssertEqual(ResumeDecision.decideFTP(stored: stored, remaining: 400, modified: mdtm), .append(total: 500))
        // No MDTM from the server: resumed by size.
        XCTAssertEqual(ResumeDecision.decideFTP(stored: stored, remaining: 400, modified: nil), .append(total: 500))
        // No size either: the stored total stands.
        XCTAssertEqual(ResumeDecision.decideFTP(stored: stored, remaining: nil, modified: nil), .append(total: 500))
    }

    func test_R52_ftpChangedSizeStartsOver() {
        let stored = StoredProgress(offset: 100, total: 500, lastModified: mdtm)
        guard case .startOver(_, let reason) = ResumeDecision.decideFTP(stored: stored, remaining: 600, modified: mdtm) else {
            return XCTFail("a new size must start over")
        }
        XCTAssertEqual(reason, "file changed on the FTP server (size 500 → 700)")
    }

    func test_R52_ftpChangedModificationTimeStartsOver() {
        let stored = StoredProgress(offset: 100, total: 500, lastModified: mdtm)
        let later = "Mon, 07 Nov 1994 08:49:37 GMT"
        guard case .startOver(_, let reason) = ResumeDecision.decideFTP(stored: stored, remaining: 400, modified: later) else {
            return XCTFail("a new MDTM must start over")
        }
        XCTAssertTrue(reason.contains("modification time"), reason)
    }

    func test_R52_mdtmFormattedAsHTTPDate() {
        XCTAssertEqual(HeaderValue.httpDate(epochSeconds: 784111777), mdtm)
        XCTAssertEqual(HeaderValue.httpDate(epochSeconds: 0), "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(HeaderValue.httpDate(HeaderValue.httpDate(epochSeconds: 1_795_000_000))?.timeIntervalSince1970,
                       1_795_000_000)
    }

    func test_R52_logWordsPerProtocol() {
        XCTAssertEqual(TransferProtocol(url: "FTP://h/x"), .ftp)
        XCTAssertEqual(TransferProtocol(url: "ftps://h/x"), .ftp)
        XCTAssertEqual(TransferProtocol(url: "https://h/x"), .http)
        XCTAssertEqual(TransferProtocol.ftp.resumed(at: 7, status: 206), "FTP server resumed at byte 7 (REST)")
        XCTAssertEqual(TransferProtocol.http.resumed(at: 7, status: 206), "server resumed at byte 7 (HTTP 206)")
        XCTAssertEqual(TransferProtocol.ftp.resuming(held: .prefix(7), hasValidator: true),
                       "resuming from byte 7 with REST, if the size and modification time (MDTM) are unchanged")
    }
}
