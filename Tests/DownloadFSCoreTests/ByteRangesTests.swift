import TestSupport
import XCTest
@testable import DownloadFSCore

/// `ByteRanges`: what of a partly downloaded file is on disk (R18), kept as
/// sorted, disjoint, non-adjacent ranges, and its strict catalog text form.
final class ByteRangesTests: XCTestCase {
    // MARK: Building

    func test_R18_anEmptySetCoversNothing() {
        let set = ByteRanges()
        XCTAssertTrue(set.isEmpty)
        XCTAssertEqual(set.count, 0)
        XCTAssertEqual(set.ranges, [])
        XCTAssertEqual(set.prefixEnd, 0)
        XCTAssertFalse(set.contains(0))
        XCTAssertTrue(set.contains(5..<5), "an empty range is contained")
        XCTAssertFalse(set.contains(0..<1))
        XCTAssertNil(set.range(containing: 0))
        XCTAssertEqual(set.gaps(in: 0..<10), [0..<10])
        XCTAssertEqual(set.encoded, "")
        XCTAssertEqual(set.description, "none")
        XCTAssertEqual(set, ByteRanges([]))
    }

    func test_R18_adjacentInsertsMerge() {
        var set = ByteRanges()
        set.insert(0..<10)
        set.insert(10..<20)
        XCTAssertEqual(set.ranges, [0..<20])
        set.insert(25..<30)
        set.insert(20..<25)
        XCTAssertEqual(set.ranges, [0..<30])
        set.insert(40..<50)
        set.insert(30..<40)
        XCTAssertEqual(set.ranges, [0..<50])
        XCTAssertEqual(set.count, 50)
    }

    func test_R18_aRangeFillingTheHoleBetweenTwoJoinsThem() {
        var set = ByteRanges([0..<10, 20..<30])
        set.insert(10..<20)
        XCTAssertEqual(set.ranges, [0..<30])
        XCTAssertEqual(set.count, 30)
    }

    func test_R18_overlappingInsertsMerge() {
        var set = ByteRanges()
        set.insert(10..<20)
        set.insert(15..<25)
        XCTAssertEqual(set.ranges, [10..<25])
        set.insert(5..<12)
        XCTAssertEqual(set.ranges, [5..<25])
        set.insert(30..<40)
        set.insert(50..<60)
        set.insert(0..<100)
        XCTAssertEqual(set.ranges, [0..<100], "one range swallows several")
        XCTAssertEqual(set.count, 100)
    }

    func test_R18_anInsertInsideARangeChangesNothing() {
        var set = ByteRanges([0..<100])
        set.insert(10..<20)
        set.insert(0..<100)
        set.insert(99..<100)
        XCTAssertEqual(set.ranges, [0..<100])
        XCTAssertEqual(set.count, 100)
    }

    func test_R18_anEmptyInsertOrRemoveChangesNothing() {
        var set = ByteRanges([10..<20])
        set.insert(5..<5)
        set.insert(30..<30)
        set.remove(15..<15)
        XCTAssertEqual(set.ranges, [10..<20])
        XCTAssertEqual(set.count, 10)
    }

    func test_R18_insertsBetweenRangesKeepThemSortedAndApart() {
        var set = ByteRanges()
        set.insert(50..<60)
        set.insert(10..<20)
        set.insert(30..<40)
        set.insert(70..<80)
        set.insert(0..<5)
        XCTAssertEqual(set.ranges, [0..<5, 10..<20, 30..<40, 50..<60, 70..<80])
        XCTAssertEqual(set.count, 45)
        set.insert(21..<29)
        XCTAssertEqual(set.ranges, [0..<5, 10..<20, 21..<29, 30..<40, 50..<60, 70..<80], "one byte apart stays apart")
    }

    func test_R18_initNormalisesAnyOrderOverlapAndEmptyRanges() {
        let set = ByteRanges([30..<40, 5..<5, 0..<10, 8..<12, 12..<15, 35..<38, 50..<50, 20..<21])
        XCTAssertEqual(set.ranges, [0..<15, 20..<21, 30..<40])
        XCTAssertEqual(set.count, 26)
        var inserted = ByteRanges()
        for range in [30..<40, 5..<5, 0..<10, 8..<12, 12..<15, 35..<38, 50..<50, 20..<21] as [Range<Int64>] {
            inserted.insert(range)
        }
        XCTAssertEqual(set, inserted)
    }

    // MARK: Removing

    func test_R18_removingTheMiddleSplitsARange() {
        var set = ByteRanges([0..<100])
        set.remove(40..<60)
        XCTAssertEqual(set.ranges, [0..<40, 60..<100])
        XCTAssertEqual(set.count, 80)
        XCTAssertFalse(set.contains(40))
        XCTAssertFalse(set.contains(59))
        XCTAssertTrue(set.contains(39))
        XCTAssertTrue(set.contains(60))
    }

    func test_R18_removingTrimsTheEdgesOfTheRangesItOverlaps() {
        var set = ByteRanges([0..<10, 20..<30, 40..<50, 60..<70])
        set.remove(5..<45)
        XCTAssertEqual(set.ranges, [0..<5, 45..<50, 60..<70])
        XCTAssertEqual(set.count, 20)
        set.remove(0..<5)
        XCTAssertEqual(set.ranges, [45..<50, 60..<70])
        set.remove(69..<1000)
        XCTAssertEqual(set.ranges, [45..<50, 60..<69])
        XCTAssertEqual(set.count, 14)
    }

    func test_R18_removingWhatIsNotThereOrOnlyTouchesChangesNothing() {
        var set = ByteRanges([10..<20, 30..<40])
        set.remove(0..<10)
        set.remove(20..<30)
        set.remove(40..<100)
        XCTAssertEqual(set.ranges, [10..<20, 30..<40])
        XCTAssertEqual(set.count, 20)
        set.remove(0..<100)
        XCTAssertTrue(set.isEmpty)
        XCTAssertEqual(set.count, 0)
    }

    // MARK: Asking

    func test_R18_containsAnOffsetOnlyInsideAHalfOpenRange() {
        let set = ByteRanges([10..<20])
        XCTAssertFalse(set.contains(9))
        XCTAssertTrue(set.contains(10))
        XCTAssertTrue(set.contains(19))
        XCTAssertFalse(set.contains(20), "the upper bound is excluded")
        XCTAssertFalse(set.contains(-1))
    }

    func test_R18_containsARangeOnlyWhenEveryByteIsCovered() {
        let set = ByteRanges([10..<20, 21..<30])
        XCTAssertTrue(set.contains(10..<20))
        XCTAssertTrue(set.contains(12..<15))
        XCTAssertFalse(set.contains(9..<15))
        XCTAssertFalse(set.contains(15..<21), "one missing byte at 20")
        XCTAssertFalse(set.contains(10..<30))
        XCTAssertTrue(set.contains(1000..<1000), "an empty range is contained")
        XCTAssertTrue(set.covers(21..<30))
        XCTAssertFalse(set.covers(0..<30))
    }

    func test_R18_rangeContainingAnOffsetIsTheWholeStoredRange() {
        let set = ByteRanges([0..<5, 10..<20])
        XCTAssertEqual(set.range(containing: 0), 0..<5)
        XCTAssertEqual(set.range(containing: 4), 0..<5)
        XCTAssertNil(set.range(containing: 5))
        XCTAssertNil(set.range(containing: 9))
        XCTAssertEqual(set.range(containing: 15), 10..<20)
        XCTAssertNil(set.range(containing: 20))
    }

    func test_R18_gapsIncludeTheEdgesOfTheBounds() {
        let set = ByteRanges([10..<20, 30..<40])
        XCTAssertEqual(set.gaps(in: 0..<50), [0..<10, 20..<30, 40..<50])
        XCTAssertEqual(set.gaps(in: 10..<40), [20..<30], "no gap where a range meets the bound")
        XCTAssertEqual(set.gaps(in: 15..<35), [20..<30])
        XCTAssertEqual(set.gaps(in: 12..<18), [])
        XCTAssertEqual(set.gaps(in: 20..<30), [20..<30])
        XCTAssertEqual(set.gaps(in: 25..<26), [25..<26])
        XCTAssertEqual(set.gaps(in: 5..<5), [], "empty bounds have no gap")
        XCTAssertEqual(ByteRanges().gaps(in: 3..<7), [3..<7])
    }

    func test_R18_prefixEndIsTheEndOfTheRangeStartingAtZero() {
        XCTAssertEqual(ByteRanges([0..<100, 200..<300]).prefixEnd, 100)
        XCTAssertEqual(ByteRanges([1..<100]).prefixEnd, 0, "offset 0 missing: nothing to resume from")
        XCTAssertEqual(ByteRanges([0..<1]).prefixEnd, 1)
        XCTAssertEqual(ByteRanges([0..<50, 50..<80]).prefixEnd, 80)
    }

    func test_R18_clampedKeepsOnlyTheOffsetsInsideTheBounds() {
        let set = ByteRanges([0..<10, 20..<30, 40..<50])
        XCTAssertEqual(set.clamped(to: 5..<45).ranges, [5..<10, 20..<30, 40..<45])
        XCTAssertEqual(set.clamped(to: 5..<45).count, 20)
        XCTAssertEqual(set.clamped(to: 10..<20), ByteRanges())
        XCTAssertEqual(set.clamped(to: 0..<0), ByteRanges())
        XCTAssertEqual(set.clamped(to: 0..<1000), set)
        XCTAssertEqual(set.clamped(to: 25..<26).ranges, [25..<26])
    }

    func test_R18_unionMergesTouchingAndOverlappingRangesOfBoth() {
        let a = ByteRanges([0..<10, 20..<30, 60..<70])
        let b = ByteRanges([10..<15, 25..<40, 80..<90])
        let union = a.union(b)
        XCTAssertEqual(union.ranges, [0..<15, 20..<40, 60..<70, 80..<90])
        XCTAssertEqual(union.count, 15 + 20 + 10 + 10)
        XCTAssertEqual(b.union(a), union)
        XCTAssertEqual(a.union(ByteRanges()), a)
        XCTAssertEqual(ByteRanges().union(a), a)
    }

    func test_R18_offsetsNearInt64MaxNeitherOverflowNorTrap() {
        let max = Int64.max
        var set = ByteRanges()
        set.insert((max - 10)..<max)
        XCTAssertEqual(set.count, 10)
        XCTAssertTrue(set.contains(max - 1))
        XCTAssertFalse(set.contains(max), "the upper bound is excluded")
        XCTAssertFalse(set.contains(max - 11))
        XCTAssertEqual(set.range(containing: max - 5), (max - 10)..<max)
        XCTAssertEqual(set.gaps(in: (max - 20)..<max), [(max - 20)..<(max - 10)])
        set.insert((max - 20)..<(max - 10))
        XCTAssertEqual(set.ranges, [(max - 20)..<max])
        set.remove((max - 15)..<(max - 14))
        XCTAssertEqual(set.ranges, [(max - 20)..<(max - 15), (max - 14)..<max])
        XCTAssertEqual(set.count, 19)

        var whole = ByteRanges([0..<max])
        XCTAssertEqual(whole.count, max)
        XCTAssertTrue(whole.covers(0..<max))
        XCTAssertEqual(whole.prefixEnd, max)
        XCTAssertEqual(whole.gaps(in: 0..<max), [])
        XCTAssertEqual(whole.encoded, "0-9223372036854775807")
        XCTAssertEqual(ByteRanges(encoded: whole.encoded), whole)
        whole.remove(1..<(max - 1))
        XCTAssertEqual(whole.ranges, [0..<1, (max - 1)..<max])
        XCTAssertEqual(whole.count, 2)
        XCTAssertEqual(whole.encoded, "0-1,9223372036854775806-9223372036854775807")
    }

    // MARK: Text form

    func test_R18_encodedIsStartDashEndCommaSeparated() {
        let set = ByteRanges([2_097_152..<3_000_000, 0..<1_048_576])
        XCTAssertEqual(set.encoded, "0-1048576,2097152-3000000")
        XCTAssertEqual(set.description, "0-1048576,2097152-3000000")
        XCTAssertEqual(ByteRanges(encoded: "0-1048576,2097152-3000000"), set)
        XCTAssertEqual(ByteRanges(encoded: "0-1048576,2097152-3000000")?.count, 1_048_576 + 902_848)
        XCTAssertEqual(ByteRanges(encoded: ""), ByteRanges())
        XCTAssertEqual(ByteRanges(encoded: "0-1")?.ranges, [0..<1])
        XCTAssertEqual(ByteRanges(encoded: "1-2,3-4")?.ranges, [1..<2, 3..<4], "one byte apart is not adjacent")
    }

    func test_R18_malformedTextIsRejected() {
        let malformed = [
            "0-0", "5-3", "1-2,2-3", "3-4,1-2", "1-5,3-8", "1-5,2-3", "-1-5", "1--5", "1-", "-", "-5", "1", ",",
            "a-b", "1-b", "a-2", " 1-2", "1-2 ", "1 -2", "1- 2", "1-2,", ",1-2", "1-2,,3-4", "1-2-3",
            "+1-2", "1-+2", "01-2", "1-02", "00-1",
            "99999999999999999999-1", "0-99999999999999999999", "0-9223372036854775808",
            "9223372036854775808-9223372036854775809", "1-2,9223372036854775810-9223372036854775811",
            "0x1-0x2", "1_0-20", "1.0-2", "1-2;3-4", "1-2\n", "\u{FF11}-2", "1\u{2013}2", "1-2,3",
        ]
        for text in malformed {
            XCTAssertNil(ByteRanges(encoded: text), "\(text.debugDescription) must not parse")
        }
    }

    func test_R18_randomSetsSurviveTheTextRoundTrip() {
        var random = SeededGenerator.fromEnvironment()
        for step in 0..<2_000 {
            var set = ByteRanges()
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let bits = Int64.random(in: 0...62, using: &random)
                let start = Int64.random(in: 0...(Int64(1) << bits), using: &random)
                let length = Int64.random(in: 0...(Int64(1) << Int64.random(in: 0...40, using: &random)), using: &random)
                set.insert(start..<(start + length))
            }
            let text = set.encoded
            guard ByteRanges(encoded: text) == set else {
                XCTFail("step \(step): \(text.debugDescription) did not round-trip; \(random)")
                return
            }
            let expected = set.ranges.map { "\($0.lowerBound)-\($0.upperBound)" }
            guard text.split(separator: ",").map(String.init) == expected, text.isEmpty == set.isEmpty else {
                XCTFail("step \(step): \(text.debugDescription) is not the ranges \(set.ranges); \(random)")
                return
            }
        }
    }

    // MARK: Model

    /// The runs of covered offsets of a bitmap, which is what the set should hold.
    private func runs(_ model: [Bool], in bounds: Range<Int>, covered: Bool) -> [Range<Int64>] {
        var runs: [Range<Int64>] = []
        var start: Int? = nil
        for offset in bounds.lowerBound...bounds.upperBound {
            let inRun = offset < bounds.upperBound && model[offset] == covered
            if inRun, start == nil { start = offset }
            if !inRun, let begun = start {
                runs.append(Int64(begun)..<Int64(offset))
                start = nil
            }
        }
        return runs
    }

    private func randomRange(_ size: Int, _ random: inout SeededGenerator) -> Range<Int> {
        let a = Int.random(in: 0...size, using: &random)
        // Short ranges mostly, so that many ranges live side by side.
        let b = Bool.random(using: &random) ? min(size, a + Int.random(in: 0...6, using: &random)) : Int.random(in: 0...size, using: &random)
        return min(a, b)..<max(a, b)
    }

    /// Thousands of random inserts and removes on offsets 0..<200, each
    /// step checked against a bitmap for every question the set answers.
    func test_R18_randomInsertsAndRemovesAgreeWithABitmap() {
        var random = SeededGenerator.fromEnvironment()
        let size = 200
        var set = ByteRanges()
        var model = [Bool](repeating: false, count: size)
        for step in 0..<6_000 {
            if step % 1_500 == 0 {
                set = ByteRanges()
                model = [Bool](repeating: false, count: size)
            }
            let range = randomRange(size, &random)
            let inserting = Int.random(in: 0..<10, using: &random) < 6
            if inserting { set.insert(Int64(range.lowerBound)..<Int64(range.upperBound)) } else { set.remove(Int64(range.lowerBound)..<Int64(range.upperBound)) }
            for offset in range { model[offset] = inserting }

            var wrong: [String] = []
            let expected = runs(model, in: 0..<size, covered: true)
            if set.ranges != expected { wrong.append("ranges \(set.ranges) != \(expected)") }
            for (index, stored) in set.ranges.enumerated() {
                if stored.isEmpty { wrong.append("empty range \(stored)") }
                if index > 0 && set.ranges[index - 1].upperBound >= stored.lowerBound {
                    wrong.append("\(set.ranges[index - 1]) and \(stored) are not sorted, disjoint and apart")
                }
            }
            let covered = Int64(model.filter { $0 }.count)
            if set.count != covered { wrong.append("count \(set.count) != \(covered)") }
            if set.isEmpty != (covered == 0) { wrong.append("isEmpty") }
            for offset in -1...size {
                let inModel = offset >= 0 && offset < size && model[offset]
                if set.contains(Int64(offset)) != inModel { wrong.append("contains(\(offset))") }
                var holder: Range<Int64>? = nil
                if inModel {
                    var low = offset
                    var high = offset + 1
                    while low > 0 && model[low - 1] { low -= 1 }
                    while high < size && model[high] { high += 1 }
                    holder = Int64(low)..<Int64(high)
                }
                if set.range(containing: Int64(offset)) != holder { wrong.append("range(containing: \(offset)) \(String(describing: set.range(containing: Int64(offset)))) != \(String(describing: holder))") }
            }
            var prefix = 0
            while prefix < size && model[prefix] { prefix += 1 }
            if set.prefixEnd != Int64(prefix) { wrong.append("prefixEnd \(set.prefixEnd) != \(prefix)") }
            for _ in 0..<4 {
                let bounds = randomRange(size, &random)
                let asked = Int64(bounds.lowerBound)..<Int64(bounds.upperBound)
                let gaps = runs(model, in: bounds, covered: false)
                if set.gaps(in: asked) != gaps { wrong.append("gaps(in: \(bounds)) \(set.gaps(in: asked)) != \(gaps)") }
                let whole = bounds.allSatisfy { model[$0] }
                if set.contains(asked) != whole { wrong.append("contains(\(bounds))") }
                if set.covers(asked) != whole { wrong.append("covers(\(bounds))") }
                let clamped = runs(model.enumerated().map { bounds.contains($0.offset) && $0.element }, in: 0..<size, covered: true)
                if set.clamped(to: asked).ranges != clamped { wrong.append("clamped(to: \(bounds)) \(set.clamped(to: asked)) != \(clamped)") }
                if set.clamped(to: asked).count != Int64(bounds.filter { model[$0] }.count) { wrong.append("clamped(to: \(bounds)).count") }
            }
            var other = [Bool](repeating: false, count: size)
            var pieces: [Range<Int64>] = []
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let piece = randomRange(size, &random)
                for offset in piece { other[offset] = true }
                pieces.append(Int64(piece.lowerBound)..<Int64(piece.upperBound))
            }
            let otherSet = ByteRanges(pieces.shuffled(using: &random))
            let otherRuns = runs(other, in: 0..<size, covered: true)
            if otherSet.ranges != otherRuns { wrong.append("init(\(pieces)) \(otherSet) != \(otherRuns)") }
            let both = runs(zip(model, other).map { $0 || $1 }, in: 0..<size, covered: true)
            if set.union(otherSet).ranges != both { wrong.append("union with \(otherSet)") }
            if set.union(otherSet).count != Int64(both.reduce(0) { $0 + $1.count }) { wrong.append("union count") }
            if ByteRanges(encoded: set.encoded) != set { wrong.append("encoded \(set.encoded) does not round-trip") }
            guard wrong.isEmpty else {
                XCTFail("step \(step) (\(inserting ? "insert" : "remove") \(range)): \(wrong.prefix(5).joined(separator: "; ")); \(random)")
                return
            }
        }
    }
}
