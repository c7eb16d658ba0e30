import DownloadFSCore
import Foundation
import Glibc
import XCTest
@testable import Engine

/// `GroupFlusher`: finished files wait for company up to the policy's
/// deadline, unless the loop says no task is left downloading
/// (`noneDownloading`), which also holds for the next file to join.
final class GroupFlusherTests: XCTestCase {
    /// A deadline no test waits out: a flush within the tests' timeouts came from the word.
    private let patient = FlushGroupPolicy(size: 32, deadline: 60)
    private var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("flusher-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A file with a few bytes written, open for the flusher (which closes it).
    private func written(_ name: String) -> Int32 {
        let fd = open(dir + "/" + name, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0, String(cString: strerror(errno)))
        XCTAssertEqual("data".withCString { write(fd, $0, 4) }, 4)
        return fd
    }

    /// Has `flusher` take a new file named `name`; its flush, which must
    /// succeed, fulfils `expectations`.
    private func join(_ flusher: GroupFlusher, _ name: String, fulfilling expectations: XCTestExpectation...) {
        flusher.join(written(name)) { err in
            XCTAssertEqual(err, 0)
            for expectation in expectations { expectation.fulfill() }
        }
    }

    func test_R51_filesWaitingForCompanyGoOnceNoTaskIsDownloading() {
        let flusher = GroupFlusher(policy: patient)
        let flushed = expectation(description: "flushed")
        join(flusher, "a", fulfilling: flushed)
        flusher.noneDownloading()
        wait(for: [flushed], timeout: 10)
        flusher.drain()
    }

    func test_R51_theWordHoldsForTheNextFileAndIsSpentByItsFlush() {
        let flusher = GroupFlusher(policy: patient)
        // Said before the file joins: the loop hears of the last download's
        // end before the engine hands its file over.
        flusher.noneDownloading()
        let first = expectation(description: "first flushed")
        join(flusher, "a", fulfilling: first)
        wait(for: [first], timeout: 10)

        // That flush spent the word: the next file waits for company (here
        // until the drain), as it does while downloads run.
        let early = expectation(description: "second flushed before the drain")
        early.isInverted = true
        let second = expectation(description: "second flushed at the drain")
        join(flusher, "b", fulfilling: early, second)
        wait(for: [early], timeout: 0.3)
        flusher.drain()
        wait(for: [second], timeout: 10)
    }
}
