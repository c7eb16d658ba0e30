/// Decides what a free connection of a segmented download fetches next
/// (R18: "No segment is smaller than 1 MiB; a connection that finishes its
/// segment takes over half of the largest remaining one, so all connections
/// finish together").
///
/// Pure and static, so every rule is tested without a network: the engine
/// asks `next` with what is on disk (`done`) and what each connection is
/// fetching (`claims`), then records the answer with `apply`.
///
/// - Unclaimed bytes come first, the largest hole whole (ties: the lowest
///   start), even under 1 MiB: bytes left over after a crash must still be
///   fetched, and the 1 MiB floor is about splitting, not about fetching.
/// - When every missing byte is claimed, the connection with the most left
///   to fetch (ties: the lowest position) whose claim splits is split near
///   the middle of what it has left, at a multiple of `alignment` so that
///   writes stay page (and O_DIRECT) aligned; a claim splits only if both
///   halves are at least `minimumSegment`,
///   since a new request costs a round trip and a TCP slow start that a
///   smaller piece would not pay back.
///
/// The planner trusts the claims it is given. A claim's bytes below its
/// `position` are already written and become `done` as the caller records
/// them. The engine owns the real write positions: a victim's connection
/// may have written past `at` between the planning and the steal taking
/// effect, and clamping such a steal (starting the new connection at the
/// victim's true position, or dropping it) is the engine's job, not the
/// planner's.
public enum SegmentPlanner {
    /// No segment made by a split is smaller than this (R18); an attempt
    /// may ask for a larger floor (`SplitPolicy`).
    public static let minimumSegment: Int64 = 1 << 20
    /// Split points are multiples of this (absolute file offsets).
    public static let alignment: Int64 = 64 << 10

    /// What the next free connection of a `total`-byte file fetches, or nil
    /// when there is nothing worth a new connection: `total` ≤ 0, all of it
    /// done, or every missing byte claimed and the largest claim too small
    /// to split.
    public static func next(total: Int64, done: ByteRanges, claims: [SegmentClaim],
                            minimumSegment: Int64 = minimumSegment) -> SegmentAssignment? {
        guard total > 0 else { return nil }
        let missing = done.gaps(in: 0..<total)
        guard !missing.isEmpty else { return nil }

        var unclaimed = ByteRanges(missing)
        for claim in claims where claim.position < claim.end {
            unclaimed.remove(claim.position..<claim.end)
        }
        var largest: Range<Int64>? = nil
        for gap in unclaimed.ranges where length(gap) > largest.map(length) ?? 0 {
            largest = gap
        }
        if let largest { return .gap(largest) }

        // The largest claim that splits: alignment can leave the largest
        // one unsplittable while a slightly smaller one splits, and giving
        // up there left a connection idle until some shrink made the
        // smaller claim the largest.
        var best: (victim: SegmentClaim, at: Int64)? = nil
        for claim in claims where claim.remaining > 0 {
            if let best, claim.remaining < best.victim.remaining
                || (claim.remaining == best.victim.remaining && claim.position > best.victim.position) { continue }
            let at = alignedDown(claim.position + claim.remaining / 2)
            guard at - claim.position >= minimumSegment, claim.end - at >= minimumSegment else { continue }
            best = (claim, at)
        }
        guard let best else { return nil }
        return .steal(from: best.victim.id, at: best.at, range: best.at..<best.victim.end)
    }

    /// Records `assignment` in `claims`: the new connection `newID` starts at
    /// the lower bound of its range, and for a steal the victim now ends at
    /// `at`. A steal whose victim is no longer in `claims` adds only the new
    /// claim.
    public static func apply(_ assignment: SegmentAssignment, newID: UInt64, to claims: inout [SegmentClaim]) {
        if case .steal(let from, let at, _) = assignment, let index = claims.firstIndex(where: { $0.id == from }) {
            claims[index].end = at
        }
        let range = assignment.range
        claims.append(SegmentClaim(id: newID, position: range.lowerBound, end: range.upperBound))
    }

    private static func length(_ range: Range<Int64>) -> Int64 { range.upperBound - range.lowerBound }

    /// The greatest multiple of `alignment` not above `offset`.
    private static func alignedDown(_ offset: Int64) -> Int64 {
        let remainder = offset % alignment
        return remainder >= 0 ? offset - remainder : offset - remainder - alignment
    }
}
