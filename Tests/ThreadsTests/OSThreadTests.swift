import Threads
import Foundation
import Glibc
import XCTest

final class OSThreadTests: XCTestCase {
    /// How many times each index ran, and on how many threads.
    private final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var counts: [Int]
        private(set) var threads = Set<UInt>()
        init(_ count: Int) { counts = Array(repeating: 0, count: count) }
        func ran(_ i: Int) {
            lock.withLock {
                counts[i] += 1
                threads.insert(UInt(pthread_self()))
            }
        }
    }

    func testEveryIndexRunsOnceOverSeveralThreads() {
        let record = Record(100)
        OSThread.lanes(100, width: 4, name: "test-lane") { i in
            usleep(200)  // long enough that the helpers take some
            record.ran(i)
        }
        XCTAssertEqual(record.counts, Array(repeating: 1, count: 100))
        XCTAssertGreaterThan(record.threads.count, 1)
        XCTAssertLessThanOrEqual(record.threads.count, 4)
    }

    func testNoWorkAndOneLaneRunOnTheCaller() {
        OSThread.lanes(0, width: 16, name: "test-lane") { _ in XCTFail("nothing to run") }
        let record = Record(5)
        OSThread.lanes(5, width: 1, name: "test-lane") { record.ran($0) }
        XCTAssertEqual(record.counts, Array(repeating: 1, count: 5))
        XCTAssertEqual(record.threads, [UInt(pthread_self())])
    }

    /// A stack no system can give (64 TiB) makes every pthread_create
    /// fail: the caller then runs every index itself, and the call returns.
    func testThreadsThatCannotBeMadeLeaveTheWorkToTheCaller() {
        XCTAssertThrowsError(try OSThread.start("test-none", stackSize: 1 << 46) {}) { error in
            let failure = error as? ThreadStartError
            XCTAssertEqual(failure?.name, "test-none")
            XCTAssertTrue(failure?.message.hasPrefix("cannot start the test-none thread (") ?? false, failure?.message ?? "")
        }
        let record = Record(20)
        OSThread.lanes(20, width: 8, name: "test-lane", stackSize: 1 << 46) { record.ran($0) }
        XCTAssertEqual(record.counts, Array(repeating: 1, count: 20))
        XCTAssertEqual(record.threads, [UInt(pthread_self())])
    }

    func testADetachedThreadRunsItsBody() {
        let ran = DispatchSemaphore(value: 0)
        XCTAssertNoThrow(try OSThread.start("test-one", stackSize: 64 << 10) { ran.signal() })
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
    }
}
