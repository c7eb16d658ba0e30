import XCTest
@testable import DownloadFSCore

/// R11: a FUSE request names a thread; its process is the `Tgid:` of `/proc/TID/status`.
final class ProcessStatusTests: XCTestCase {
    func test_R11_aThreadsProcessIsItsThreadGroup() {
        let text = "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4250\nPPid:\t1\n"
        XCTAssertEqual(ProcessStatus(text: text)?.threadGroup, 4242)
        XCTAssertEqual(ProcessStatus(text: "Tgid: 7")?.threadGroup, 7)
    }

    func test_R11_noTgidLineIsNoStatus() {
        XCTAssertNil(ProcessStatus(text: ""))
        XCTAssertNil(ProcessStatus(text: "Name:\tx\nPid:\t5\n"))
        XCTAssertNil(ProcessStatus(text: "Tgid:\tmany\n"))
    }
}
