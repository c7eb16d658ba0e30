import TestSupport
import XCTest
@testable import DownloadFSCore

/// `SegmentedAttempt`: the bookkeeping of one attempt of a segmented
/// download (R18): up to `split` connections on closed ranges, a finished
/// connection takes half of the largest remaining one, and a server that
/// ignores ranges or changes the file makes the task go on with one
/// connection from zero.
final class SegmentedAttemptTests: XCTestCase {
    private let mib: Int64 = 1 << 20

    private func claim(_ id: UInt64, _ position: Int64, _ end: Int64) -> SegmentClaim {
        SegmentClaim(id: id, position: position, end: end)
    }

    private func closed(_ start: Int64, _ end: Int64) -> RequestedRange {
        RequestedRange(start: start, end: end)
    }

    /// A fresh 40 MiB task on two connections, after the first answer:
    /// connection 1 on 0..<20 MiB (shrunk), connection 2 on 20..<40 MiB.
    private func twoConnections(split: Int = 2) -> SegmentedAttempt {
        var attempt = SegmentedAttempt(total: 40 * mib, held: ByteRanges(), split: split)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.responded(1, total: 40 * mib, ranged: false),
                       [.shrink(id: 1, end: 20 * mib), .open(id: 2, range: closed(20 * mib, 40 * mib))])
        return attempt
    }

    // MARK: Start

    func test_R18_aFreshTaskStartsWithOneOpenEndedConnectionThenStealsAfterA206() {
        var attempt = SegmentedAttempt(total: nil, held: ByteRanges(), split: 4)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.connections, 1)
        XCTAssertFalse(attempt.single)
        XCTAssertEqual(attempt.claims, [claim(1, 0, .max)])

        let actions = attempt.responded(1, total: 100 * mib, ranged: true)
        XCTAssertEqual(actions, [
            .shrink(id: 1, end: 50 * mib), .open(id: 2, range: closed(50 * mib, 100 * mib)),
            // Both have 50 MiB left: the lowest position is split first.
            .shrink(id: 1, end: 25 * mib), .open(id: 3, range: closed(25 * mib, 50 * mib)),
            .shrink(id: 2, end: 75 * mib), .open(id: 4, range: closed(75 * mib, 100 * mib)),
        ])
        XCTAssertEqual(attempt.total, 100 * mib)
        XCTAssertEqual(attempt.connections, 4)
        XCTAssertEqual(attempt.claims, [claim(1, 0, 25 * mib), claim(2, 50 * mib, 75 * mib),
                                        claim(3, 25 * mib, 50 * mib), claim(4, 75 * mib, 100 * mib)])
    }

    func test_R18_aPlain200WithALengthAlsoLetsTheOthersOpen() {
        var attempt = SegmentedAttempt(total: 10 * mib, held: ByteRanges(), split: 2)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))], "a fresh task waits for the first answer")
        XCTAssertEqual(attempt.claims, [claim(1, 0, 10 * mib)])
        XCTAssertEqual(attempt.setSplit(3), [], "no second connection before the first answer")
        XCTAssertEqual(attempt.responded(1, total: 10 * mib, ranged: false),
                       [.shrink(id: 1, end: 5 * mib), .open(id: 2, range: closed(5 * mib, 10 * mib)),
                        .shrink(id: 1, end: 5 * mib / 2), .open(id: 3, range: closed(5 * mib / 2, 5 * mib))])
    }

    func test_R18_aResumeWithHolesOpensClosedRangesOnTheHoles() {
        let held = ByteRanges([0..<mib, (2 * mib)..<(3 * mib), (7 * mib)..<(10 * mib)])
        var two = SegmentedAttempt(total: 10 * mib, held: held, split: 2)
        XCTAssertEqual(two.start(), [.open(id: 1, range: closed(3 * mib, 7 * mib)),
                                     .open(id: 2, range: closed(mib, 2 * mib))], "the largest hole first")

        var four = SegmentedAttempt(total: 10 * mib, held: held, split: 4)
        XCTAssertEqual(four.start(), [
            .open(id: 1, range: closed(3 * mib, 7 * mib)),
            .open(id: 2, range: closed(mib, 2 * mib)),
            .shrink(id: 1, end: 5 * mib), .open(id: 3, range: closed(5 * mib, 7 * mib)),
            .shrink(id: 1, end: 4 * mib), .open(id: 4, range: closed(4 * mib, 5 * mib)),
        ])
        XCTAssertEqual(four.written, held)
        XCTAssertEqual(four.start(), [], "a second start does nothing")
    }

    func test_R18_aHeldPrefixResumesOpenEndedThenSplitsWithClosedRanges() {
        var one = SegmentedAttempt(total: 3 * mib, held: ByteRanges([0..<mib]), split: 1)
        XCTAssertEqual(one.start(), [.open(id: 1, range: .from(mib))], "a resume asks bytes=N- (R52)")
        var two = SegmentedAttempt(total: 9 * mib, held: ByteRanges([0..<mib]), split: 2)
        XCTAssertEqual(two.start(), [.open(id: 1, range: .from(mib)),
                                     .shrink(id: 1, end: 5 * mib), .open(id: 2, range: closed(5 * mib, 9 * mib))],
                       "the resume is cut where the segment it gave away starts")
    }

    func test_R18_nothingToFetchOpensNothing() {
        var empty = SegmentedAttempt(total: 0, held: ByteRanges(), split: 4)
        XCTAssertTrue(empty.isComplete)
        XCTAssertEqual(empty.start(), [])
        var done = SegmentedAttempt(total: 5 * mib, held: ByteRanges([0..<(5 * mib)]), split: 4)
        XCTAssertTrue(done.isComplete)
        XCTAssertEqual(done.start(), [])
        XCTAssertEqual(done.connections, 0)
    }

    func test_R18_heldBytesBeyondTheTotalAndTheSplitAreClamped() {
        XCTAssertEqual(SegmentedAttempt(total: 10, held: ByteRanges([5..<20]), split: 4).written, ByteRanges([5..<10]))
        XCTAssertEqual(SegmentedAttempt(total: 10, held: ByteRanges(), split: 0).split, 1)
        XCTAssertEqual(SegmentedAttempt(total: 10, held: ByteRanges(), split: -3).split, 1)
        XCTAssertEqual(SegmentedAttempt(total: 10, held: ByteRanges(), split: 17).split, 16)
        XCTAssertFalse(SegmentedAttempt(total: nil, held: ByteRanges([0..<10]), split: 4).isComplete,
                       "never complete while the total is unknown")
    }

    func test_R18_aFirstConnectionThatFailsBeforeItsAnswerIsNotReplaced() {
        var fresh = SegmentedAttempt(total: 10 * mib, held: ByteRanges(), split: 4)
        XCTAssertEqual(fresh.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(fresh.ended(1), [], "whether ranges work is still unknown")
        XCTAssertEqual(fresh.connections, 0)
        var resumed = SegmentedAttempt(total: 10 * mib, held: ByteRanges([0..<(9 * mib)]), split: 4)
        XCTAssertEqual(resumed.start(), [.open(id: 1, range: .from(9 * mib))], "a lone tail is a resume (R52)")
        XCTAssertEqual(resumed.ended(1), [.open(id: 2, range: .from(9 * mib))],
                       "the total is known: the hole is fetched again")
    }

    // MARK: Unknown total

    func test_R19_aFirstConnectionThatFailedIsReopenedOnlyBeforeAnyAnswer() {
        var fresh = SegmentedAttempt(total: nil, held: ByteRanges(), split: 4)
        XCTAssertEqual(fresh.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(fresh.reopen(), [], "connection 1 is still open")
        XCTAssertEqual(fresh.ended(1), [])
        XCTAssertEqual(fresh.reopen(), [.open(id: 2, range: .from(0))], "a new number for the next mirror")
        XCTAssertEqual(fresh.responded(2, total: 10 * mib, ranged: false).first, .shrink(id: 2, end: 5 * mib))
        XCTAssertEqual(fresh.reopen(), [], "answered: the attempt carries on as it is")
        var resumed = SegmentedAttempt(total: 10 * mib, held: ByteRanges([0..<mib]), split: 1)
        XCTAssertEqual(resumed.start(), [.open(id: 1, range: .from(mib))])
        XCTAssertEqual(resumed.ended(1), [.open(id: 2, range: .from(mib))], "the total is known: refilled at once")
    }

    func test_R18_anUnknownTotalStaysOnOneConnection() {
        var attempt = SegmentedAttempt(total: nil, held: ByteRanges([0..<1000]), split: 8)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(1000))], "from the held prefix")
        XCTAssertEqual(attempt.responded(1, total: nil, ranged: true), [])
        XCTAssertTrue(attempt.single)
        XCTAssertNil(attempt.total)
        XCTAssertEqual(attempt.wrote(1, 1000..<(50 * mib)), [])
        XCTAssertEqual(attempt.written, ByteRanges([0..<(50 * mib)]))
        XCTAssertEqual(attempt.claims, [claim(1, 50 * mib, .max)])
        XCTAssertEqual(attempt.setSplit(16), [])
        XCTAssertFalse(attempt.isComplete)
        XCTAssertEqual(attempt.ended(1), [], "no replacement on one connection")
        XCTAssertEqual(attempt.connections, 0)
    }

    func test_R18_anOpenEndedClaimStopsAtTheNextHeldByteOnceTheTotalIsKnown() {
        // The total is unknown but bytes are held beyond a hole: the first
        // request is open-ended, its claim ends where the held bytes begin.
        let held = ByteRanges([0..<100, (5 * mib)..<(6 * mib)])
        var attempt = SegmentedAttempt(total: nil, held: held, split: 4)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(100))])
        XCTAssertEqual(attempt.claims, [claim(1, 100, 5 * mib)])
        XCTAssertEqual(attempt.responded(1, total: 10 * mib, ranged: true), [
            .shrink(id: 1, end: 5 * mib),
            .open(id: 2, range: closed(6 * mib, 10 * mib)),
            .shrink(id: 1, end: 5 * mib / 2), .open(id: 3, range: closed(5 * mib / 2, 5 * mib)),
            .shrink(id: 2, end: 8 * mib), .open(id: 4, range: closed(8 * mib, 10 * mib)),
        ])
    }

    func test_R18_anOpenEndedClaimRunsToTheEndWhenTheTotalStaysUnknown() {
        var attempt = SegmentedAttempt(total: nil, held: ByteRanges([(5 * mib)..<(6 * mib)]), split: 4)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.claims, [claim(1, 0, 5 * mib)])
        XCTAssertEqual(attempt.responded(1, total: nil, ranged: false), [])
        XCTAssertEqual(attempt.claims, [claim(1, 0, .max)])
        XCTAssertEqual(attempt.wrote(1, 0..<(7 * mib)), [], "writing over the held bytes does not stop it")
        XCTAssertEqual(attempt.claims, [claim(1, 7 * mib, .max)])
    }

    // MARK: Finishing, failing, stealing

    func test_R18_aFinishingConnectionTakesHalfOfTheLargestRemaining() {
        var attempt = twoConnections()
        XCTAssertEqual(attempt.wrote(1, 0..<(10 * mib)), [])
        XCTAssertEqual(attempt.claims, [claim(1, 10 * mib, 20 * mib), claim(2, 20 * mib, 40 * mib)])
        // Connection 2 finishes its closed range: nothing to stop, and it
        // takes half of what connection 1 has left.
        XCTAssertEqual(attempt.wrote(2, (20 * mib)..<(40 * mib)),
                       [.shrink(id: 1, end: 15 * mib), .open(id: 3, range: closed(15 * mib, 20 * mib))])
        // Connection 1 (open-ended, shrunk) reaches its new end: it is
        // stopped, and its replacement splits connection 3.
        let middle = 15 * mib + 5 * mib / 2
        XCTAssertEqual(attempt.wrote(1, (10 * mib)..<(15 * mib)),
                       [.abort(id: 1), .shrink(id: 3, end: middle), .open(id: 4, range: closed(middle, 20 * mib))])
        XCTAssertEqual(attempt.claims, [claim(3, 15 * mib, middle), claim(4, middle, 20 * mib)])
        // Connection 4 finishes and splits what connection 3 has left (2.5 MiB).
        let quarter = 15 * mib + 5 * mib / 4
        XCTAssertEqual(attempt.wrote(4, middle..<(20 * mib)),
                       [.shrink(id: 3, end: quarter), .open(id: 5, range: closed(quarter, middle))])
        XCTAssertEqual(attempt.wrote(3, (15 * mib)..<quarter), [.abort(id: 3)], "1.25 MiB left cannot be split")
        XCTAssertEqual(attempt.wrote(5, quarter..<middle), [])
        XCTAssertTrue(attempt.isComplete)
        XCTAssertEqual(attempt.connections, 0)
    }

    func test_R18_R19_theEndgameHandsASlowConnectionsTailToAFasterOne() {
        let half = 3 * mib / 2
        var attempt = SegmentedAttempt(total: 3 * mib, held: ByteRanges(), split: 2)
        _ = attempt.start()
        XCTAssertEqual(attempt.responded(1, total: 3 * mib, ranged: false),
                       [.shrink(id: 1, end: half), .open(id: 2, range: closed(half, 3 * mib))])
        // Both busy: nothing to hand over, whatever the speeds.
        XCTAssertEqual(attempt.endgame(speeds: [1: 20_000, 2: 4_000_000], expected: 4_000_000), [])
        // Connection 2 finishes; 1.5 MiB left on connection 1 is too little to
        // split, and at 20 KB/s it would hold the tail for 78 s.
        XCTAssertEqual(attempt.wrote(2, half..<(3 * mib)), [])
        XCTAssertEqual(attempt.claims, [claim(1, 0, half)])
        // Too short a wait, no faster connection to expect, or not measured yet: nothing.
        XCTAssertEqual(attempt.endgame(speeds: [1: 2_000_000], expected: 4_000_000), [])
        XCTAssertEqual(attempt.endgame(speeds: [1: 20_000], expected: 60_000), [])
        XCTAssertEqual(attempt.endgame(speeds: [:], expected: 4_000_000), [])
        // It keeps half a second of its work (page aligned); a new connection takes the rest.
        let at: Int64 = 16 << 10
        XCTAssertEqual(attempt.endgame(speeds: [1: 20_000], expected: 4_000_000),
                       [.shrink(id: 1, end: at), .open(id: 3, range: closed(at, half))])
        XCTAssertEqual(attempt.handedOver, half - at)
        XCTAssertEqual(attempt.claims, [claim(1, 0, at), claim(3, at, half)])
        // Both busy again: nothing more.
        XCTAssertEqual(attempt.endgame(speeds: [1: 20_000, 3: 4_000_000], expected: 4_000_000), [])
        XCTAssertEqual(attempt.wrote(3, at..<half), [])
        XCTAssertEqual(attempt.wrote(1, 0..<at), [.abort(id: 1)], "its open-ended request stops at the handover")
        XCTAssertTrue(attempt.isComplete)
        XCTAssertEqual(attempt.connections, 0)
    }

    func test_R18_anOpenEndedConnectionThatReachesTheTotalIsNotStopped() {
        var attempt = SegmentedAttempt(total: nil, held: ByteRanges(), split: 4)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.responded(1, total: mib, ranged: true), [], "1 MiB is never split")
        XCTAssertEqual(attempt.claims, [claim(1, 0, mib)])
        XCTAssertEqual(attempt.wrote(1, 0..<(mib / 2)), [])
        XCTAssertEqual(attempt.wrote(1, (mib / 2)..<mib), [], "its body ends at the total anyway")
        XCTAssertTrue(attempt.isComplete)
        XCTAssertEqual(attempt.ended(1), [])
    }

    func test_R18_aFailedConnectionsUnfetchedBytesAreAGapAgain() {
        var attempt = twoConnections()
        XCTAssertEqual(attempt.wrote(2, (20 * mib)..<(25 * mib)), [])
        XCTAssertEqual(attempt.ended(2), [.open(id: 3, range: closed(25 * mib, 40 * mib))],
                       "the hole is taken whole before anything is stolen")
        XCTAssertEqual(attempt.claims, [claim(1, 0, 20 * mib), claim(3, 25 * mib, 40 * mib)])
        XCTAssertEqual(attempt.written, ByteRanges([(20 * mib)..<(25 * mib)]))
        XCTAssertEqual(attempt.ended(99), [], "an unknown connection changes nothing")
    }

    func test_R18_bytesWrittenPastAShrinkAreKeptAndMoveTheNextClaimOn() {
        var attempt = twoConnections()
        // Connection 1 had not yet carried out its shrink to 20 MiB.
        let past = 20 * mib + 100
        XCTAssertEqual(attempt.wrote(1, 0..<past),
                       [.abort(id: 1), .shrink(id: 2, end: 30 * mib), .open(id: 3, range: closed(30 * mib, 40 * mib))])
        XCTAssertEqual(attempt.written, ByteRanges([0..<past]))
        XCTAssertEqual(attempt.claims, [claim(2, past, 30 * mib), claim(3, 30 * mib, 40 * mib)])
        // Connection 2 rewrites those bytes (same data), its claim never goes back.
        XCTAssertEqual(attempt.wrote(2, (20 * mib)..<(20 * mib + 50)), [])
        XCTAssertEqual(attempt.claims[0], claim(2, past, 30 * mib))
        // A write from the stopped connection that arrives late is still kept.
        XCTAssertEqual(attempt.wrote(1, past..<(past + 10)), [])
        XCTAssertEqual(attempt.claims[0], claim(2, past + 10, 30 * mib))
    }

    func test_R18_aConnectionWhoseBytesWereAllWrittenByAnotherIsStopped() {
        var attempt = SegmentedAttempt(total: 4 * mib, held: ByteRanges(), split: 2)
        _ = attempt.start()
        XCTAssertEqual(attempt.responded(1, total: 4 * mib, ranged: true),
                       [.shrink(id: 1, end: 2 * mib), .open(id: 2, range: closed(2 * mib, 4 * mib))])
        // Connection 1 ignores its shrink and writes the whole file.
        XCTAssertEqual(attempt.wrote(1, 0..<(4 * mib)), [.abort(id: 2)],
                       "connection 1's own request ended at the total: only 2 must stop")
        XCTAssertTrue(attempt.isComplete)
        XCTAssertEqual(attempt.connections, 0)
    }

    // MARK: Falling back

    func test_R18_fallingBackAbortsTheOthersAndStartsFromZero() {
        var attempt = twoConnections()
        XCTAssertEqual(attempt.setSplit(3), [.shrink(id: 1, end: 10 * mib), .open(id: 3, range: closed(10 * mib, 20 * mib))])
        XCTAssertEqual(attempt.wrote(2, (20 * mib)..<(21 * mib)), [])
        XCTAssertEqual(attempt.wrote(3, (10 * mib)..<(11 * mib)), [])
        // Connection 2's request was answered with a 200: it keeps going from 0.
        XCTAssertEqual(attempt.fellBack(keeping: 2, total: 40 * mib), [.abort(id: 1), .abort(id: 3)])
        XCTAssertTrue(attempt.single)
        XCTAssertEqual(attempt.written, ByteRanges())
        XCTAssertEqual(attempt.claims, [claim(2, 0, 40 * mib)])
        XCTAssertEqual(attempt.wrote(3, (11 * mib)..<(12 * mib)), [], "a dropped connection's late bytes are not trusted")
        XCTAssertEqual(attempt.written, ByteRanges())
        XCTAssertEqual(attempt.wrote(2, 0..<mib), [])
        XCTAssertEqual(attempt.written, ByteRanges([0..<mib]))
        XCTAssertEqual(attempt.setSplit(16), [], "one connection from now on")
        XCTAssertEqual(attempt.wrote(2, mib..<(40 * mib)), [])
        XCTAssertTrue(attempt.isComplete)
    }

    func test_R18_aChangedValidatorDropsHeldBytesAndOpensANewConnectionFromZero() {
        var attempt = SegmentedAttempt(total: 10 * mib, held: ByteRanges([0..<(5 * mib)]), split: 2)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(5 * mib)),
                                         .shrink(id: 1, end: 15 * mib / 2), .open(id: 2, range: closed(15 * mib / 2, 10 * mib))])
        XCTAssertEqual(attempt.fellBack(keeping: nil, total: nil), [.abort(id: 1), .abort(id: 2), .open(id: 3, range: .from(0))])
        XCTAssertEqual(attempt.written, ByteRanges())
        XCTAssertNil(attempt.total, "the new connection's answer tells the size")
        XCTAssertEqual(attempt.claims, [claim(3, 0, .max)])
        XCTAssertFalse(attempt.isComplete)
        XCTAssertEqual(attempt.responded(3, total: 10 * mib, ranged: false), [], "single: nothing else opens")
        XCTAssertEqual(attempt.ended(3), [], "single: no replacement")
    }

    func test_R18_aReadersWindowKeptByAFallBackIsNeverYielded() {
        // The window's range request was answered with a 200 from byte 0:
        // it is the whole download now. (A randomised attempt found the
        // only connection yielded to nobody and the download stalled.)
        var attempt = SegmentedAttempt(total: 10 * mib, held: ByteRanges(), split: 4)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.want((8 * mib)..<(8 * mib + 1)),
                       [.shrink(id: 1, end: 8 * mib), .openForReader(id: 2, range: closed(8 * mib, 10 * mib))])
        XCTAssertEqual(attempt.fellBack(keeping: 2, total: 10 * mib), [.abort(id: 1)])
        XCTAssertEqual(attempt.windows, [])
        XCTAssertNil(attempt.yieldWindow(waiting: []), "no window left to yield")
        XCTAssertEqual(attempt.claims, [claim(2, 0, 10 * mib)])
    }

    func test_R18_fallingBackKeepingAnUnknownConnectionOpensANewOne() {
        var attempt = SegmentedAttempt(total: nil, held: ByteRanges(), split: 2)
        _ = attempt.start()
        XCTAssertEqual(attempt.fellBack(keeping: 7, total: nil), [.abort(id: 1), .open(id: 2, range: .from(0))])
        XCTAssertEqual(attempt.claims, [claim(2, 0, .max)], "to the unknown end")
    }

    // MARK: Split

    func test_R18_setSplitUpOpensAndDownLetsConnectionsFinish() {
        var attempt = SegmentedAttempt(total: 100 * mib, held: ByteRanges(), split: 1)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.responded(1, total: 100 * mib, ranged: true), [])
        XCTAssertEqual(attempt.setSplit(3), [
            .shrink(id: 1, end: 50 * mib), .open(id: 2, range: closed(50 * mib, 100 * mib)),
            .shrink(id: 1, end: 25 * mib), .open(id: 3, range: closed(25 * mib, 50 * mib)),
        ])
        XCTAssertEqual(attempt.setSplit(1), [], "nothing is stopped")
        XCTAssertEqual(attempt.connections, 3)
        XCTAssertEqual(attempt.wrote(3, (25 * mib)..<(50 * mib)), [], "not replaced: still more than one")
        XCTAssertEqual(attempt.connections, 2)
        XCTAssertEqual(attempt.ended(2), [], "its hole waits: one connection is busy")
        XCTAssertEqual(attempt.connections, 1)
        XCTAssertEqual(attempt.wrote(1, 0..<(25 * mib)), [.abort(id: 1), .open(id: 4, range: .from(50 * mib))],
                       "below the split again: the hole is fetched")
        XCTAssertEqual(attempt.setSplit(0), [])
        XCTAssertEqual(attempt.split, 1)
        let many = attempt.setSplit(99)
        XCTAssertEqual(attempt.split, 16)
        XCTAssertEqual(attempt.connections, 16)
        XCTAssertEqual(many.filter { if case .open = $0 { return true } else { return false } }.count, 15)
    }

    func test_R18_idsAreNeverReused() {
        var attempt = twoConnections(split: 2)
        var seen: Set<UInt64> = [1, 2]
        var last: UInt64 = 2
        func check(_ actions: [SegmentAction]) {
            for case .open(let id, _) in actions {
                XCTAssertFalse(seen.contains(id), "id \(id) reused")
                XCTAssertGreaterThan(id, last)
                seen.insert(id)
                last = id
            }
        }
        for _ in 0..<5 {
            check(attempt.ended(attempt.claims[0].id))
            XCTAssertEqual(attempt.connections, 2)
        }
        check(attempt.fellBack(keeping: nil, total: nil))
        XCTAssertEqual(last, 8)
        check(attempt.fellBack(keeping: nil, total: nil))
        XCTAssertEqual(last, 9)
    }

    // MARK: Readers (R23)

    func test_R23_aReadFarAheadOpensAConnectionThereBeyondTheSplit() {
        var attempt = SegmentedAttempt(total: 100 * mib, held: ByteRanges(), split: 1)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.responded(1, total: 100 * mib, ranged: false), [])
        XCTAssertEqual(attempt.want((90 * mib + 5)..<(90 * mib + 4096)),
                       [.shrink(id: 1, end: 90 * mib), .openForReader(id: 2, range: closed(90 * mib, 94 * mib))],
                       "split 1, yet a second connection: at the reader's page, 4 MiB read ahead")
        XCTAssertEqual(attempt.connections, 2, "the rest of the claim waits for a free connection")
        XCTAssertEqual(attempt.claims, [claim(1, 0, 90 * mib), claim(2, 90 * mib, 94 * mib)])
        XCTAssertEqual(attempt.want((90 * mib + 512 * 1024)..<(91 * mib)), [], "connection 2 gets there within 1 MiB")
        XCTAssertEqual(attempt.want(0..<4096), [], "connection 1 is at byte 0")
        XCTAssertEqual(attempt.wrote(1, 0..<mib), [])
        XCTAssertEqual(attempt.want(0..<mib), [], "written: served at once, nothing to fetch")
    }

    func test_R23_aReadInAHoleNoConnectionHoldsOpensOneOnIt() {
        var attempt = SegmentedAttempt(total: 10 * mib, held: ByteRanges([0..<mib, (6 * mib)..<(10 * mib)]), split: 2)
        let opened = attempt.start()
        XCTAssertEqual(opened.count, 3, "a connection on the hole, then half of it stolen: \(opened)")
        XCTAssertEqual(attempt.setSplit(1), [])
        let second = attempt.claims[1]
        XCTAssertEqual(attempt.ended(second.id), [], "the split is 1: its bytes wait")
        let hole = second.position + mib / 2
        XCTAssertEqual(attempt.want(hole..<(hole + 10)), [.openForReader(id: 3, range: closed(hole, 6 * mib))],
                       "from the reader's byte to the held bytes after it (under 4 MiB)")
    }

    func test_R23_aWindowThatOnlyReadsAheadYieldsToAWaitingReader() {
        var attempt = SegmentedAttempt(total: 100 * mib, held: ByteRanges(), split: 1, readsOnly: true)
        _ = attempt.start()
        XCTAssertEqual(attempt.want((10 * mib)..<(10 * mib + 4096)),
                       [.openForReader(id: 1, range: closed(10 * mib, 14 * mib))])
        XCTAssertEqual(attempt.want((50 * mib)..<(50 * mib + 4096)),
                       [.openForReader(id: 2, range: closed(50 * mib, 54 * mib))])
        XCTAssertEqual(attempt.windows, [1, 2])
        // Both readers still wait for their first bytes: nothing yields.
        let both = [(10 * mib)..<(10 * mib + 4096), (50 * mib)..<(50 * mib + 4096)]
        XCTAssertNil(attempt.yieldWindow(waiting: both))
        // The first reader was served and moved on; its window reads ahead for nobody.
        XCTAssertEqual(attempt.wrote(1, (10 * mib)..<(10 * mib + 65536)), [])
        XCTAssertEqual(attempt.yieldWindow(waiting: [(50 * mib)..<(50 * mib + 4096), (80 * mib)..<(80 * mib + 10)]),
                       [.abort(id: 1)], "a reading attempt does not refill what a window left")
        XCTAssertEqual(attempt.windows, [2])
        XCTAssertEqual(attempt.claims.map(\.id), [2])
        XCTAssertNil(attempt.yieldWindow(waiting: [(52 * mib)..<(52 * mib + 10)]), "window 2 still serves a reader")
    }

    func test_R23_aReadingAttemptOutlivesItsReadersBySecondOnly() {
        let reading = SegmentedAttempt(total: 100 * mib, held: ByteRanges(), split: 1, readsOnly: true)
        XCTAssertFalse(reading.readersGone(waiting: 1, idleSeconds: 60), "a reader waits")
        XCTAssertFalse(reading.readersGone(waiting: 0, idleSeconds: 0.5), "a reader read half a second ago")
        XCTAssertTrue(reading.readersGone(waiting: 0, idleSeconds: SegmentedAttempt.readerIdleSeconds))
        XCTAssertTrue(reading.readersGone(waiting: 0, idleSeconds: .infinity), "no reader ever read")
        let download = SegmentedAttempt(total: 100 * mib, held: ByteRanges(), split: 4)
        XCTAssertFalse(download.readersGone(waiting: 0, idleSeconds: .infinity), "a download is not the readers'")
    }

    func test_R23_aSequentialReaderKeepsAWindowOpenAheadOfIt() {
        var attempt = SegmentedAttempt(total: 100 * mib, held: ByteRanges(), split: 1)
        _ = attempt.start()
        _ = attempt.responded(1, total: 100 * mib, ranged: false)
        XCTAssertEqual(attempt.want((50 * mib)..<(50 * mib + 1)),
                       [.shrink(id: 1, end: 50 * mib), .openForReader(id: 2, range: closed(50 * mib, 54 * mib))])
        XCTAssertEqual(attempt.wrote(2, (50 * mib)..<(51 * mib)), [])
        XCTAssertEqual(attempt.want((51 * mib)..<(51 * mib + 4096)), [], "the window reaches 2 MiB past the reader and more")
        XCTAssertEqual(attempt.wrote(2, (51 * mib)..<(52 * mib + 4096)), [])
        XCTAssertEqual(attempt.want((52 * mib + 4096)..<(52 * mib + 8192)),
                       [.openForReader(id: 3, range: closed(54 * mib, 58 * mib))],
                       "under half a window left ahead: the next window opens after it")
        XCTAssertEqual(attempt.want((52 * mib + 8192)..<(52 * mib + 12288)), [], "once")
        XCTAssertEqual(attempt.wrote(1, 0..<(50 * mib)), [.abort(id: 1)],
                       "connection 1 reached the reader's window: its open request is stopped")
        XCTAssertEqual(attempt.ended(1), [], "the readers' windows fill the split of 1")
        XCTAssertEqual(attempt.wrote(2, (52 * mib + 4096)..<(54 * mib)), [])
        XCTAssertEqual(attempt.ended(2), [])
        XCTAssertEqual(attempt.wrote(3, (54 * mib)..<(58 * mib)), [.open(id: 4, range: .from(58 * mib))],
                       "the rest of the cut claim goes back to the split once the windows are done, on the tail")
        XCTAssertEqual(attempt.ended(3), [])
    }

    func test_R23_aReadsOnlyAttemptFetchesOnlyWhatIsRead() {
        var attempt = SegmentedAttempt(total: 100 * mib, held: ByteRanges([0..<(10 * mib)]), split: 4, readsOnly: true)
        XCTAssertEqual(attempt.start(), [], "nothing opens on its own")
        XCTAssertEqual(attempt.want(0..<mib), [], "held")
        XCTAssertEqual(attempt.want((70 * mib + 100)..<(70 * mib + 200)),
                       [.openForReader(id: 1, range: closed(70 * mib, 74 * mib))])
        XCTAssertEqual(attempt.want((20 * mib)..<(20 * mib + 1)),
                       [.openForReader(id: 2, range: closed(20 * mib, 24 * mib))])
        XCTAssertEqual(attempt.wrote(1, (70 * mib)..<(74 * mib)), [])
        XCTAssertEqual(attempt.ended(1), [], "no split to fill: the other bytes wait for a reader or a download")
        XCTAssertEqual(attempt.setSplit(8), [])
        XCTAssertEqual(attempt.connections, 1)
        var unknown = SegmentedAttempt(total: nil, held: ByteRanges(), split: 1, readsOnly: true)
        XCTAssertEqual(unknown.start(), [])
        XCTAssertEqual(unknown.want(0..<mib), [], "no total: nothing to fetch ahead")
    }

    func test_R23_readersDoNotOpenConnectionsWithoutBoundOrOnOneConnection() {
        var attempt = SegmentedAttempt(total: 1 << 30, held: ByteRanges(), split: 1)
        _ = attempt.start()
        _ = attempt.responded(1, total: 1 << 30, ranged: false)
        for k in 1..<40 { _ = attempt.want((Int64(k) * 25 * mib)..<(Int64(k) * 25 * mib + 1)) }
        XCTAssertEqual(attempt.connections, SegmentedAttempt.maximumSplit, "at most 16 connections, readers included")
        var unknown = SegmentedAttempt(total: nil, held: ByteRanges(), split: 4)
        _ = unknown.start()
        XCTAssertEqual(unknown.want((50 * mib)..<(51 * mib)), [], "unknown total: the file grows, reads wait")
        var notStarted = SegmentedAttempt(total: 10 * mib, held: ByteRanges(), split: 4)
        XCTAssertEqual(notStarted.want(mib..<(2 * mib)), [])
    }

    func test_R23_aReaderShrinksTheFirstConnectionBeforeItsAnswerForGood() {
        var attempt = SegmentedAttempt(total: 50 * mib, held: ByteRanges(), split: 1)
        XCTAssertEqual(attempt.start(), [.open(id: 1, range: .from(0))])
        XCTAssertEqual(attempt.want((40 * mib)..<(41 * mib)),
                       [.shrink(id: 1, end: 40 * mib), .openForReader(id: 2, range: closed(40 * mib, 44 * mib))])
        XCTAssertEqual(attempt.responded(1, total: 50 * mib, ranged: false), [], "its answer keeps the shorter end")
        XCTAssertEqual(attempt.claims, [claim(1, 0, 40 * mib), claim(2, 40 * mib, 44 * mib)])
    }

    // MARK: Simulation

    private func randomTotal(_ random: inout SeededGenerator) -> Int64 {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Int64.random(in: (mib - 70_000)...(3 * mib + 70_000), using: &random)
        case 1: return Int64.random(in: 1...(Int64(1) << Int64.random(in: 0...31, using: &random)), using: &random)
        case 2: return Int64.random(in: 1...(2 << 30), using: &random)
        default: return Int64.random(in: 1...(64 * mib), using: &random)
        }
    }

    private func randomHeld(total: Int64, _ random: inout SeededGenerator) -> ByteRanges {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4: return ByteRanges()
        case 4: return ByteRanges([0..<total])
        default:
            var held = ByteRanges()
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let start = Int64.random(in: 0..<total, using: &random)
                let longest = Bool.random(using: &random) ? total - start : min(total - start, 2 * mib)
                held.insert(start..<(start + Int64.random(in: 1...longest, using: &random)))
            }
            return held
        }
    }

    /// One connection as the engine model sees it.
    private struct Link {
        var request: RequestedRange
        var position: Int64
        /// Where it stops writing: its request's end, or a shrink's (a few
        /// bytes later when the shrink races with the transfer).
        var stop: Int64
        var answered = false
    }

    /// Hundreds of attempts of random sizes, held ranges and splits, run by
    /// an engine model that carries out every action, writes random pieces
    /// on random connections, fails some, overruns some shrinks, falls back
    /// now and then and changes the split; every step is checked and every
    /// attempt must complete.
    func test_R18_randomAttemptsCompleteWithDisjointClaimsWithinTheSplit() {
        var random = SeededGenerator.fromEnvironment()
        let limit = 200_000
        for number in 0..<400 {
            let total = randomTotal(&random)
            let held = randomHeld(total: total, &random)
            let knownAtStart = Int.random(in: 0..<3, using: &random) > 0
            let ignoresRanges = Int.random(in: 0..<12, using: &random) == 0
            var attempt = SegmentedAttempt(total: knownAtStart ? total : nil, held: held,
                                           split: Int.random(in: 1...16, using: &random))
            var links: [UInt64: Link] = [:]
            var disk = held.clamped(to: 0..<total)
            var lastID: UInt64 = 0
            var fallbacks = 0
            var steps = 0
            var event = "start"
            var failed = false
            func fail(_ message: String) {
                failed = true
                XCTFail("attempt \(number) (total \(total), held \(held), split \(attempt.split), known \(knownAtStart), ignoresRanges \(ignoresRanges)) step \(steps) after \(event): \(message); claims \(attempt.claims); written \(attempt.written); \(random)")
            }
            func carry(_ actions: [SegmentAction]) {
                for action in actions {
                    switch action {
                    case .open(let id, let range), .openForReader(let id, let range):
                        if id <= lastID { return fail("open \(id) reuses or goes back from \(lastID)") }
                        lastID = id
                        if range.start > total || (range.start == total && attempt.total != nil) { return fail("open \(id) at \(range.start) beyond the file") }
                        if let end = range.end, !(range.start < end && end <= total) { return fail("open \(id) of \(range) is empty or beyond the file") }
                        if range.end == nil && !attempt.single && attempt.total != nil,
                           let last = attempt.written.ranges.last, last.upperBound > range.start {
                            return fail("open-ended request \(range) that is not on the file's tail")
                        }
                        links[id] = Link(request: range, position: range.start, stop: range.end ?? total)
                    case .shrink(let id, let end):
                        guard var link = links[id] else { return fail("shrink of unknown connection \(id)") }
                        if end <= link.position || end >= link.stop { return fail("shrink of \(id) to \(end) outside \(link.position)..<\(link.stop)") }
                        // Sometimes the transfer runs a few bytes past the new end.
                        link.stop = Int.random(in: 0..<4, using: &random) == 0
                            ? min(link.stop, end + Int64.random(in: 1...100_000, using: &random)) : end
                        links[id] = link
                    case .abort(let id):
                        if links.removeValue(forKey: id) == nil { return fail("abort of unknown connection \(id)") }
                    }
                }
            }
            func checkAfter(before: Int) {
                guard !failed else { return }
                let claims = attempt.claims
                let allowed = event.hasPrefix("read") ? min(SegmentedAttempt.maximumSplit, before + 1) : max(attempt.split, before)
                if claims.count > allowed { return fail("\(claims.count) claims over split \(attempt.split) (was \(before))") }
                if attempt.single && claims.count > 1 { return fail("single with \(claims.count) claims") }
                if let known = attempt.total, known != total { return fail("total \(known), not \(total)") }
                if attempt.written != disk { return fail("written \(attempt.written), but the disk has \(disk)") }
                for c in claims {
                    if !(0 <= c.position && c.position < c.end) { return fail("claim \(c) is empty") }
                    if attempt.total != nil && c.end > total { return fail("claim \(c) beyond the file") }
                    if !attempt.written.clamped(to: c.position..<c.end).isEmpty { return fail("claim \(c) covers written bytes") }
                    if links[c.id] == nil { return fail("claim \(c) has no connection") }
                }
                let sorted = claims.sorted { $0.position < $1.position }
                for (a, b) in zip(sorted, sorted.dropFirst()) where a.end > b.position { return fail("claims \(a) and \(b) overlap") }
                if Set(claims.map(\.id)).count != claims.count { return fail("two claims share an id") }
                for id in links.keys where !claims.contains(where: { $0.id == id }) { return fail("connection \(id) runs without a claim") }
            }

            carry(attempt.start())
            checkAfter(before: 0)
            while !failed && !attempt.isComplete {
                steps += 1
                if steps > limit { fail("not complete after \(limit) steps"); break }
                if links.isEmpty { fail("nothing left to fetch the missing bytes"); break }
                let before = attempt.connections
                let ids = links.keys.sorted()
                let id = ids[Int.random(in: 0..<ids.count, using: &random)]
                let dice = Int.random(in: 0..<200, using: &random)
                // Before the first answer nothing can replace a failed
                // connection (the engine's retry policy takes over then):
                // a closed request counts as planned unless it is a
                // reader's window, which may open before any answer.
                let planned = links.contains { id, link in
                    link.answered || (link.request.end != nil && !attempt.windows.contains(id))
                }
                if dice < 6 && !attempt.single && planned {
                    event = "connection \(id) failed"
                    links[id] = nil
                    carry(attempt.ended(id))
                } else if dice == 6 && fallbacks < 2 {
                    // The validator changed: a connection from 0 goes on.
                    fallbacks += 1
                    let keeping: UInt64? = Bool.random(using: &random) ? id : nil
                    event = "fell back keeping \(keeping.map(String.init) ?? "none")"
                    if let keeping { links[keeping] = Link(request: .from(0), position: 0, stop: total) }
                    disk = ByteRanges()
                    carry(attempt.fellBack(keeping: keeping, total: keeping == nil ? nil : total))
                } else if (188...189).contains(dice) {
                    event = "a window yielded"
                    if let actions = attempt.yieldWindow(waiting: []) { carry(actions) }
                } else if (186...187).contains(dice) {
                    // A tick of the endgame: random speeds, a fast connection expected.
                    event = "endgame"
                    var speeds: [UInt64: Double] = [:]
                    for key in links.keys where Bool.random(using: &random) {
                        speeds[key] = Double(Int.random(in: 1...4_000_000, using: &random))
                    }
                    carry(attempt.endgame(speeds: speeds, expected: Double(Int.random(in: 1...40_000_000, using: &random))))
                } else if dice >= 190 && attempt.total != nil {
                    // A reader somewhere in the file (R23).
                    let at = Int64.random(in: 0..<total, using: &random)
                    event = "read at \(at)"
                    carry(attempt.want(at..<min(total, at + Int64.random(in: 1...(4 * mib), using: &random))))
                } else if dice < 10 {
                    let split = Int.random(in: -2...20, using: &random)
                    event = "split set to \(split)"
                    carry(attempt.setSplit(split))
                } else if var link = links[id], !link.answered {
                    let whole = link.request.start == 0 && link.request.end == nil
                    if ignoresRanges && !whole {
                        event = "connection \(id) got a 200 to \(link.request)"
                        fallbacks += 1
                        links[id] = Link(request: .from(0), position: 0, stop: total, answered: true)
                        disk = ByteRanges()
                        carry(attempt.fellBack(keeping: id, total: total))
                        if !failed { carry(attempt.responded(id, total: total, ranged: false)) }
                    } else {
                        event = "connection \(id) answered \(whole ? 200 : 206)"
                        link.answered = true
                        links[id] = link
                        carry(attempt.responded(id, total: total, ranged: !whole))
                        if !failed, let still = links[id], still.position >= still.stop {
                            // Asked for nothing (all held, total unknown at the start).
                            links[id] = nil
                            carry(attempt.ended(id))
                        }
                    }
                } else if var link = links[id] {
                    let left = link.stop - link.position
                    let amount: Int64
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: amount = left
                    case 1: amount = Int64.random(in: 1...left, using: &random)
                    default: amount = Int64.random(in: 1...min(left, 100_000), using: &random)
                    }
                    let range = link.position..<(link.position + amount)
                    event = "connection \(id) wrote \(range)"
                    link.position = range.upperBound
                    links[id] = link
                    disk.insert(range)
                    carry(attempt.wrote(id, range))
                    if !failed, let still = links[id], still.position >= still.stop {
                        event = "connection \(id) ended after \(range)"
                        links[id] = nil
                        carry(attempt.ended(id))
                    }
                }
                checkAfter(before: before)
            }
            if failed { return }
            if !attempt.claims.isEmpty || !links.isEmpty { return fail("complete, but connections \(links.keys.sorted()) are still open") }
        }
    }
}
