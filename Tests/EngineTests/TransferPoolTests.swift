import CCurl
import XCTest
@testable import Engine

/// `TransferPool`: which handles and buffers are kept for the next
/// transfer, and that a kept handle carries nothing of the one before.
final class TransferPoolTests: XCTestCase {
    func test_aSmallTransfersHandleIsKeptWithNothingOfItsOptions() throws {
        let pool = TransferPool()
        let handle = try XCTUnwrap(pool.handle())
        let marker = UnsafeMutableRawPointer(bitPattern: 0x1234)
        XCTAssertEqual(ccurl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, marker), CURLE_OK)
        pool.giveBack(handle, received: 64 << 10, usedCookies: false)
        XCTAssertEqual(pool.kept.handles, 1)
        let again = try XCTUnwrap(pool.handle())
        XCTAssertEqual(again, handle)
        XCTAssertEqual(pool.kept.handles, 0)
        var stored: UnsafeMutableRawPointer?
        XCTAssertEqual(ccurl_easy_getinfo_pointer(again, CURLINFO_PRIVATE, &stored), CURLE_OK)
        XCTAssertNil(stored, "curl_easy_reset dropped the options")
        curl_easy_cleanup(again)
    }

    func test_aHandleThatHadCookiesOrABigBodyIsNotKept() throws {
        let pool = TransferPool()
        pool.giveBack(try XCTUnwrap(pool.handle()), received: 10, usedCookies: true)
        pool.giveBack(try XCTUnwrap(pool.handle()), received: TransferPool.keptBelow + 1, usedCookies: false)
        XCTAssertEqual(pool.kept.handles, 0)
    }

    func test_atMostKeepOfEachAreKept() throws {
        let pool = TransferPool()
        let handles = try (0...TransferPool.keep).map { _ in try XCTUnwrap(curl_easy_init()) }
        for handle in handles { pool.giveBack(handle, received: 0, usedCookies: false) }
        let buffers = (0...TransferPool.keep).map { _ in pool.buffer() }
        for buffer in buffers { pool.giveBack(buffer) }
        XCTAssertEqual(pool.kept.handles, TransferPool.keep)
        XCTAssertEqual(pool.kept.buffers, TransferPool.keep)
        let buffer = pool.buffer()
        XCTAssertEqual(Int(bitPattern: buffer) % 4096, 0, "page aligned")
        XCTAssertTrue(buffers.contains(buffer), "a kept buffer is given first")
        pool.giveBack(buffer)
    }
}
