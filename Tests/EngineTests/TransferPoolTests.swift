import CCurl
import XCTest
@testable import Engine

/// `TransferPool`: which handles and buffers are kept for the next
/// transfer, and that a kept handle carries nothing of the one before.
final class TransferPoolTests: XCTestCase {
    func test_aSmallTransfersHandleIsKeptWithNothingOfItsOptions() throws {
        let pool = TransferPool()
        let (handle, kept) = try XCTUnwrap(pool.handle())
        XCTAssertFalse(kept, "an empty pool makes a new one")
        let marker = UnsafeMutableRawPointer(bitPattern: 0x1234)
        XCTAssertEqual(ccurl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, marker), CURLE_OK)
        pool.giveBack(handle, received: 64 << 10, reusable: true)
        XCTAssertEqual(pool.kept.handles, 1)
        let (again, wasKept) = try XCTUnwrap(pool.handle())
        XCTAssertEqual(again, handle)
        XCTAssertTrue(wasKept)
        XCTAssertEqual(pool.kept.handles, 0)
        var stored: UnsafeMutableRawPointer?
        XCTAssertEqual(ccurl_easy_getinfo_pointer(again, CURLINFO_PRIVATE, &stored), CURLE_OK)
        XCTAssertNil(stored, "curl_easy_reset dropped the options")
        curl_easy_cleanup(again)
    }

    func test_aHandleNotReusableOrThatHadABigBodyIsNotKept() throws {
        let pool = TransferPool()
        pool.giveBack(try XCTUnwrap(pool.handle()).0, received: 10, reusable: false)
        pool.giveBack(try XCTUnwrap(pool.handle()).0, received: TransferPool.keptBelow + 1, reusable: true)
        XCTAssertEqual(pool.kept.handles, 0)
    }

    func test_aKeptHandleThatRefusesAnOptionIsReplacedByANewOne() throws {
        let pool = TransferPool()
        let (first, _) = try XCTUnwrap(pool.handle())
        pool.giveBack(first, received: 0, reusable: true)
        let (kept, wasKept) = try XCTUnwrap(pool.handle())
        XCTAssertTrue(wasKept)
        var tried: [UnsafeMutableRawPointer] = []
        // curl 7.88 has refused CURLOPT_BUFFERSIZE on a handle some failed transfers left.
        let (used, rc) = pool.configure(kept, kept: true) { handle in
            tried.append(handle)
            return handle == kept ? CURLE_BAD_FUNCTION_ARGUMENT : CURLE_OK
        }
        XCTAssertEqual(rc, CURLE_OK)
        XCTAssertEqual(tried.count, 2)
        XCTAssertEqual(tried.first, kept)
        XCTAssertEqual(used, tried.last)
        XCTAssertNotEqual(used, kept)
        XCTAssertEqual(ccurl_easy_setopt_long(used, CURLOPT_BUFFERSIZE, 2 << 20), CURLE_OK, "a handle curl made")
        curl_easy_cleanup(used)
    }

    func test_aNewHandleThatRefusesAnOptionIsNotTriedAgain() throws {
        let pool = TransferPool()
        let (handle, wasKept) = try XCTUnwrap(pool.handle())
        XCTAssertFalse(wasKept)
        var calls = 0
        let (used, rc) = pool.configure(handle, kept: false) { _ in
            calls += 1
            return CURLE_BAD_FUNCTION_ARGUMENT
        }
        XCTAssertEqual(calls, 1)
        XCTAssertEqual(used, handle)
        XCTAssertEqual(rc, CURLE_BAD_FUNCTION_ARGUMENT)
        curl_easy_cleanup(used)
    }

    func test_atMostKeepOfEachAreKept() throws {
        let pool = TransferPool()
        let handles = try (0...TransferPool.keep).map { _ in try XCTUnwrap(curl_easy_init()) }
        for handle in handles { pool.giveBack(handle, received: 0, reusable: true) }
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
