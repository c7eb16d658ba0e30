/// The byte offsets of a file that are safely on disk, as sorted, disjoint,
/// non-adjacent half-open ranges.
///
/// A segmented download (R18) writes several parts of one file at once, and
/// a crash or a pause leaves holes between them; resuming must fetch exactly
/// the holes, so what is on disk is a set of offsets, not one count. Keeping
/// the ranges canonical (adjacent and overlapping ones merged, no empty one)
/// makes two equal sets compare equal, keeps the catalog text short and
/// unique, and lets every lookup binary-search instead of scanning: a
/// 4 GiB file fetched by many connections that steal from one another can
/// leave thousands of ranges before they join up again.
///
/// Offsets are file offsets, so never negative in use; the total (`count`)
/// of non-negative ranges always fits an `Int64`.
public struct ByteRanges: Sendable, Equatable, CustomStringConvertible {
    /// Sorted by offset; each is non-empty and ends strictly before the next
    /// one starts (a gap of at least one byte between any two).
    public private(set) var ranges: [Range<Int64>] = []

    /// The bytes covered, kept up to date by every change so that progress,
    /// asked for on every status read, is not a sum over every range.
    public private(set) var count: Int64 = 0

    /// The first `count` bytes, as one connection from zero writes them.
    public static func prefix(_ count: Int64) -> ByteRanges {
        ByteRanges(count > 0 ? [0..<count] : [])
    }

    public init() {}

    /// The union of `ranges`, given in any order, overlapping or empty.
    public init(_ ranges: [Range<Int64>]) {
        // Sorting once and merging in one pass: inserting each in turn would
        // shift the array for every out-of-order range.
        let sorted = ranges.filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        self.init(sortedNonEmpty: sorted)
    }

    /// Merges ranges already sorted by lower bound, none empty.
    private init(sortedNonEmpty sorted: [Range<Int64>]) {
        var merged: [Range<Int64>] = []
        merged.reserveCapacity(sorted.count)
        for range in sorted {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                if range.upperBound > last.upperBound {
                    merged[merged.count - 1] = last.lowerBound..<range.upperBound
                }
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
        self.count = merged.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// The end of the range that starts at offset 0, or 0 when offset 0 is
    /// not covered: the contiguous prefix a single-connection resume (one
    /// `Range: bytes=N-` request) may keep, whatever lies beyond the first hole.
    public var prefixEnd: Int64 {
        guard let first = ranges.first, first.lowerBound == 0 else { return 0 }
        return first.upperBound
    }

    // MARK: Changing

    /// Adds `range`, merging it with every range it overlaps or touches.
    /// O(log n) to find them, plus the ranges it swallows.
    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // The first range that ends at or after the new start (touching counts)…
        let first = firstIndex { $0.upperBound >= range.lowerBound }
        // …and the first that starts strictly after the new end.
        let end = firstIndex(from: first) { $0.lowerBound > range.upperBound }
        var lower = range.lowerBound
        var upper = range.upperBound
        var swallowed: Int64 = 0
        if first < end {
            lower = min(lower, ranges[first].lowerBound)
            upper = max(upper, ranges[end - 1].upperBound)
            for index in first..<end { swallowed += ranges[index].upperBound - ranges[index].lowerBound }
        }
        ranges.replaceSubrange(first..<end, with: CollectionOfOne(lower..<upper))
        count += (upper - lower) - swallowed
    }

    /// Takes `range` out, cutting the ranges it overlaps (one range may split
    /// in two). O(log n) to find them, plus the ranges it touches.
    public mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // Ranges that share at least one byte with `range` (touching does not count).
        let first = firstIndex { $0.upperBound > range.lowerBound }
        let end = firstIndex(from: first) { $0.lowerBound >= range.upperBound }
        guard first < end else { return }
        var kept: [Range<Int64>] = []
        var removed: Int64 = 0
        let head = ranges[first]
        let tail = ranges[end - 1]
        if head.lowerBound < range.lowerBound { kept.append(head.lowerBound..<range.lowerBound) }
        if tail.upperBound > range.upperBound { kept.append(range.upperBound..<tail.upperBound) }
        for index in first..<end {
            let overlap = ranges[index].clamped(to: range)
            removed += overlap.upperBound - overlap.lowerBound
        }
        ranges.replaceSubrange(first..<end, with: kept)
        count -= removed
    }

    // MARK: Asking

    public func contains(_ offset: Int64) -> Bool {
        range(containing: offset) != nil
    }

    /// Whether every byte of `range` is covered; an empty range is.
    public func contains(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty else { return true }
        // Ranges are non-adjacent, so a covered range lies within one of them.
        guard let holder = self.range(containing: range.lowerBound) else { return false }
        return holder.upperBound >= range.upperBound
    }

    /// The stored range that holds `offset`, if any: how far a reader at
    /// `offset` can go before it meets a hole.
    public func range(containing offset: Int64) -> Range<Int64>? {
        let index = firstIndex { $0.upperBound > offset }
        guard index < ranges.count, ranges[index].lowerBound <= offset else { return nil }
        return ranges[index]
    }

    /// The parts of `bounds` not covered, in order: what is still to fetch
    /// of a file of `bounds.upperBound` bytes.
    public func gaps(in bounds: Range<Int64>) -> [Range<Int64>] {
        guard !bounds.isEmpty else { return [] }
        var gaps: [Range<Int64>] = []
        var cursor = bounds.lowerBound
        var index = firstIndex { $0.upperBound > bounds.lowerBound }
        while index < ranges.count, ranges[index].lowerBound < bounds.upperBound {
            if ranges[index].lowerBound > cursor { gaps.append(cursor..<ranges[index].lowerBound) }
            cursor = max(cursor, ranges[index].upperBound)
            index += 1
        }
        if cursor < bounds.upperBound { gaps.append(cursor..<bounds.upperBound) }
        return gaps
    }

    /// Whether nothing of `bounds` is left to fetch (`contains(bounds)`,
    /// named for the question a finished download asks).
    public func covers(_ bounds: Range<Int64>) -> Bool {
        contains(bounds)
    }

    /// Only the offsets inside `bounds`: what still applies to a file that
    /// turned out shorter than what was written (or a window of it).
    public func clamped(to bounds: Range<Int64>) -> ByteRanges {
        guard !bounds.isEmpty else { return ByteRanges() }
        var result = ByteRanges()
        var index = firstIndex { $0.upperBound > bounds.lowerBound }
        while index < ranges.count, ranges[index].lowerBound < bounds.upperBound {
            let piece = ranges[index].clamped(to: bounds)
            result.ranges.append(piece)
            result.count += piece.upperBound - piece.lowerBound
            index += 1
        }
        return result
    }

    /// Every offset in either set, merged in one linear pass.
    public func union(_ other: ByteRanges) -> ByteRanges {
        var sorted: [Range<Int64>] = []
        sorted.reserveCapacity(ranges.count + other.ranges.count)
        var a = 0
        var b = 0
        while a < ranges.count || b < other.ranges.count {
            if b == other.ranges.count || (a < ranges.count && ranges[a].lowerBound <= other.ranges[b].lowerBound) {
                sorted.append(ranges[a])
                a += 1
            } else {
                sorted.append(other.ranges[b])
                b += 1
            }
        }
        return ByteRanges(sortedNonEmpty: sorted)
    }

    // MARK: Catalog text

    /// `start-end` for each range (half-open, decimal), comma separated, ""
    /// when empty: one short text column that a person can read in the
    /// catalog, e.g. `0-1048576,2097152-3000000`.
    public var encoded: String {
        ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }

    /// Parses `encoded`, and nothing else: a catalog row that is not exactly
    /// what `encoded` writes (unsorted, overlapping or adjacent ranges, an
    /// empty one, a sign, a space, a leading zero, a number past `Int64.max`)
    /// was damaged, and trusting it could mark unfetched bytes as on disk.
    /// The caller then treats the file as having nothing safely written.
    public init?(encoded: String) {
        self.init()
        guard !encoded.isEmpty else { return }
        var previousEnd: Int64? = nil
        for item in encoded.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let bounds = item.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard bounds.count == 2,
                  let start = Self.decimal(bounds[0]), let end = Self.decimal(bounds[1]),
                  start < end else { return nil }
            if let previousEnd, start <= previousEnd { return nil }
            ranges.append(start..<end)
            count += end - start
            previousEnd = end
        }
    }

    /// A non-negative decimal in canonical form (ASCII digits only, no
    /// leading zero unless it is "0"), or nil, also on overflow.
    private static func decimal(_ digits: Substring.UTF8View.SubSequence) -> Int64? {
        guard let first = digits.first else { return nil }
        if first == UInt8(ascii: "0") && digits.count > 1 { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    public var description: String { isEmpty ? "none" : encoded }

    // MARK: Search

    /// The first index at or after `start` whose range satisfies `predicate`,
    /// or `ranges.count`; `predicate` must be false then true along the array.
    private func firstIndex(from start: Int = 0, where predicate: (Range<Int64>) -> Bool) -> Int {
        var low = start
        var high = ranges.count
        while low < high {
            let middle = low + (high - low) / 2
            if predicate(ranges[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
