import DownloadFSCore
import XCTest
@testable import DownloadFS

/// When the loop is woken (docs/design.md, "`TaskLoop` (the shell)"): at
/// once for a message that frees something or that somebody waits for; at
/// the end of the engine's pass for a report that does neither, so a pass's
/// reports make one turn.
final class LoopClientTests: XCTestCase {
    private func isAwake(_ client: LoopClient) -> Bool {
        client.wakeUp.wait(timeout: .now() + 0.05) == .success
    }

    func testALogLineWaitsForTheEndOfTheEnginesPass() {
        let client = LoopClient()
        client.transferNoted(1, serial: 1, line: "endgame")
        XCTAssertFalse(isAwake(client))
        client.passEnded()
        XCTAssertTrue(isAwake(client))
        XCTAssertEqual(client.takeAll().count, 1)
        // Nothing owed any more: the next pass's end wakes nobody.
        client.passEnded()
        XCTAssertFalse(isAwake(client))
    }

    func testAMessageThatFreesASlotWakesAtOnceAndPaysWhatTheEngineOwes() {
        let client = LoopClient()
        client.transferNoted(1, serial: 1, line: "endgame")
        client.transferSyncing(1, serial: 1)
        XCTAssertTrue(isAwake(client))
        XCTAssertEqual(client.takeAll().count, 2)
        client.passEnded()
        XCTAssertFalse(isAwake(client), "the owed wake-up was paid by syncing")
    }

    func testOnlyTheFirstOfAPassWakesTheLoop() {
        let client = LoopClient()
        client.transferCheckpointed(1, serial: 1, ranges: ByteRanges([0..<10]))
        client.transferCheckpointed(2, serial: 1, ranges: ByteRanges([0..<10]))
        XCTAssertTrue(isAwake(client))
        XCTAssertFalse(isAwake(client), "one wake-up takes every message")
        XCTAssertEqual(client.takeAll().count, 2)
    }
}
