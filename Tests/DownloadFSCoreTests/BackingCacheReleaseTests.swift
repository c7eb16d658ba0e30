import XCTest
@testable import DownloadFSCore

/// `BackingCacheRelease`: a finished file read through the daemon is cached
/// once (issue 27, point 3): whole windows of the backing file, one behind.
final class BackingCacheReleaseTests: XCTestCase {
    let window = BackingCacheRelease.window
    let request: Int64 = 128 << 10

    func test_readsInsideAWindowReleaseNothing() {
        XCTAssertNil(BackingCacheRelease.afterServing(offset: 0, size: request, kernelKeeps: true))
        XCTAssertNil(BackingCacheRelease.afterServing(offset: window + request, size: request, kernelKeeps: true))
        XCTAssertNil(BackingCacheRelease.afterServing(offset: 5 * window, size: 0, kernelKeeps: true), "an empty read crosses nothing")
    }

    func test_theFirstBoundaryHasNoWholeWindowBehindIt() {
        XCTAssertNil(BackingCacheRelease.afterServing(offset: window - request, size: request, kernelKeeps: true))
    }

    func test_aReadEndingOnABoundaryReleasesTheWindowBeforeThePreviousOne() {
        XCTAssertEqual(BackingCacheRelease.afterServing(offset: 2 * window - request, size: request, kernelKeeps: true), 0..<window)
        XCTAssertEqual(BackingCacheRelease.afterServing(offset: 7 * window - request, size: request, kernelKeeps: true),
                       5 * window..<6 * window)
    }

    func test_aReadAcrossABoundaryReleasesOnce() {
        XCTAssertEqual(BackingCacheRelease.afterServing(offset: 3 * window - 100, size: request, kernelKeeps: true),
                       window..<2 * window)
        // The next read, past the boundary, releases nothing more.
        XCTAssertNil(BackingCacheRelease.afterServing(offset: 3 * window - 100 + request, size: request, kernelKeeps: true))
    }

    func test_aSequentialReadReleasesEveryWindowButTheLastTwo() {
        let size = 10 * window + 123
        var released: [Range<Int64>] = []
        var offset: Int64 = 0
        while offset < size {
            let served = min(request, size - offset)
            if let range = BackingCacheRelease.afterServing(offset: offset, size: served, kernelKeeps: true) { released.append(range) }
            offset += served
        }
        XCTAssertEqual(released, (0..<9).map { Int64($0) * window..<Int64($0 + 1) * window })
    }

    func test_nothingIsReleasedWhereTheKernelKeepsNothing() {
        XCTAssertNil(BackingCacheRelease.afterServing(offset: 2 * window - request, size: request, kernelKeeps: false),
                     "a direct_io reader's next read needs the backing copy")
    }

    func test_windowsHoldWholeLargeFolios() {
        XCTAssertEqual(window % (2 << 20), 0)
    }
}
