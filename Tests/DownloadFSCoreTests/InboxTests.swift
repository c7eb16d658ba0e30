import Dispatch
import XCTest
@testable import DownloadFSCore

/// The loop's and the engine's message queue: one wake-up per batch.
final class InboxTests: XCTestCase {
    func test_onlyTheMessageThatFindsItEmptyWakes() {
        let inbox = Inbox<Int>()
        XCTAssertTrue(inbox.put(1))
        XCTAssertFalse(inbox.put(2))
        XCTAssertFalse(inbox.put(3))
        XCTAssertEqual(inbox.takeAll(), [1, 2, 3])
        // Taken: the next message needs a wake-up again.
        XCTAssertTrue(inbox.put(4))
        XCTAssertEqual(inbox.takeAll(), [4])
        XCTAssertEqual(inbox.takeAll(), [])
    }

    /// Many senders against a consumer that takes only when woken: every
    /// message is taken, none waits for a wake-up that never comes.
    func test_noMessageIsLeftWithoutAWakeUp() {
        let inbox = Inbox<Int>()
        let wake = DispatchSemaphore(value: 0)
        let senders = 8, each = 2_000
        DispatchQueue.concurrentPerform(iterations: senders + 1) { worker in
            if worker == senders {
                var taken = 0
                while taken < senders * each {
                    guard wake.wait(timeout: .now() + 10) == .success else {
                        return XCTFail("\(senders * each - taken) messages were left without a wake-up")
                    }
                    taken += inbox.takeAll().count
                }
                return
            }
            for n in 0..<each where inbox.put(worker * each + n) { wake.signal() }
        }
        XCTAssertEqual(inbox.takeAll(), [])
    }
}
