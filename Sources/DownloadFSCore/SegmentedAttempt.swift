/// The bookkeeping of one attempt of a segmented (multi-connection)
/// download (R18): which connection fetches which bytes, what is safely
/// written, and what the engine must do after each event.
///
/// Pure: the engine owns the connections and the data file, feeds this type
/// what happens (`responded`, `wrote`, `ended`, `fellBack`, `setSplit`) and
/// carries out the `SegmentAction`s it gets back. Connections are numbered
/// here, from 1, and a number is never reused.
///
/// - A fresh task (nothing held) or one whose total is unknown starts with
///   one open-ended request: only the first answer tells whether ranges work
///   and how big the file is. Once the total is known the other connections
///   open on the holes first, then by stealing half of the largest claim
///   (`SegmentPlanner`).
/// - A claim is `[position, end)` of the bytes still to come; bytes written
///   (by any connection) at a claim's position move it on, so claims stay
///   disjoint from `written` and from one another.
/// - A connection whose claim is used up is stopped (`abort`) if its request
///   went further (an open-ended or a shrunk request), and replaced.
/// - A fall back (200, another Content-Range, a changed validator) keeps one
///   connection from byte 0 and forgets everything written, held bytes too.
public struct SegmentedAttempt: Sendable {
    /// The largest `split` accepted (R18).
    public static let maximumSplit = 16

    /// The file's size, once known.
    public private(set) var total: Int64?
    /// The held ranges and every byte reported written since (all of it
    /// forgotten by a fall back).
    public private(set) var written: ByteRanges
    /// The open connections and the bytes each has still to fetch.
    public private(set) var claims: [SegmentClaim] = []
    /// True once the task fell back to one connection, or its first answer
    /// left the total unknown: no further connection is opened.
    public private(set) var single = false
    /// How many connections may fetch at once, 1…16.
    public private(set) var split: Int
    /// No segment made by a split is smaller than this (`SplitPolicy`).
    public private(set) var minimumSegment: Int64
    /// Only readers' windows are fetched (`want`): a paused or queued task
    /// being read (R23). Nothing opens at the start or to fill a split.
    public let readsOnly: Bool

    public var connections: Int { claims.count }

    /// The connections opened as readers' windows (`want`), still open.
    public private(set) var windows: Set<UInt64> = []

    /// How long a reading attempt goes on with no reader reading or waiting.
    public static let readerIdleSeconds = 1.0

    /// The total is known and every byte of it is written.
    public var isComplete: Bool {
        guard let total else { return false }
        return written.covers(0..<total)
    }

    /// The range each live connection was opened with (for a kept connection
    /// after a fall back: from 0), to tell whether it must be stopped early.
    private var requests: [UInt64: RequestedRange] = [:]
    /// The end of the bytes each live connection itself reported written.
    private var progress: [UInt64: Int64] = [:]
    private var nextID: UInt64 = 1
    private var started = false
    /// More than one connection may be planned: the total is known and the
    /// first answer came (or the start went straight to closed ranges).
    private var fanOut = false
    /// Writes are trusted from connections numbered from here on, and from
    /// `kept`: those of connections dropped by a fall back are not.
    private var trustedFrom: UInt64 = 1
    /// The first connection, whose claim end (the next held byte) its
    /// open-ended request does not carry: told at its answer.
    private var untold: UInt64?
    /// A connection's answer was accepted in this attempt.
    private var answered = false
    private var kept: UInt64? = nil

    public init(total: Int64?, held: ByteRanges, split: Int, minimumSegment: Int64 = SegmentPlanner.minimumSegment,
                readsOnly: Bool = false) {
        self.readsOnly = readsOnly
        self.minimumSegment = max(SegmentPlanner.minimumSegment, minimumSegment)
        let total = total.map { max(0, $0) }
        self.total = total
        self.written = held.clamped(to: 0..<(total ?? .max))
        self.split = Self.clamp(split)
    }

    // MARK: Events

    /// The first connections. A fresh task (nothing held from 0 on) or an
    /// unknown total: one open-ended request from the end of the held
    /// prefix. Otherwise up to `split` closed requests on what is missing.
    /// Nothing to fetch, or called again: no actions.
    public mutating func start() -> [SegmentAction] {
        guard !started else { return [] }
        started = true
        if let total, written.covers(0..<total) { return [] }
        if readsOnly {
            // Closed windows only, and only once the total is known.
            fanOut = total != nil
            single = total == nil
            return []
        }
        if total == nil || written.isEmpty {
            let from = written.prefixEnd
            let id = newID()
            // The claim stops at the next held byte, so that claims never
            // cover what is written; the request stays open-ended, and the
            // connection learns where to stop once the total is known.
            let end = nextWritten(after: from) ?? total ?? .max
            claims.append(SegmentClaim(id: id, position: from, end: end))
            requests[id] = .from(from)
            progress[id] = from
            untold = id
            return [.open(id: id, range: .from(from))]
        }
        fanOut = true
        return fill()
    }

    /// Connection `id`'s first answer was accepted; `ranged` if it was a 206
    /// to a range request. Learns the total; if it is known, the free
    /// connections open (holes first, then steals); if not, the task stays
    /// on this one connection.
    public mutating func responded(_ id: UInt64, total answered: Int64?, ranged: Bool) -> [SegmentAction] {
        guard let request = requests[id] else { return [] }
        self.answered = true
        if total == nil, let answered {
            total = max(0, answered)
            written = written.clamped(to: 0..<max(0, answered))
        }
        var actions: [SegmentAction] = []
        if request.end == nil, let index = claims.firstIndex(where: { $0.id == id }) {
            if let total {
                // The request runs to the total: stop it at the next held
                // byte, which is not fetched again.
                // (A claim shrunk before its answer keeps its shorter end.)
                let before = id == untold ? total : min(claims[index].end, total)
                untold = nil
                let end = min(before, nextWritten(after: claims[index].position) ?? total)
                claims[index].end = end
                if end < before { actions.append(.shrink(id: id, end: end)) }
            } else {
                // One connection to the unknown end: nothing else fetches.
                claims[index].end = .max
            }
        }
        guard total != nil else {
            single = true
            return actions
        }
        // The total is known: more connections may open (a 206 said ranges
        // work; after a plain 200 the new ones' answers will tell).
        if !single { fanOut = true }
        actions += settle()
        actions += fill()
        return actions
    }

    /// Connection `id` wrote `range` to the data file. Bytes beyond its
    /// claim (a shrink not yet carried out) are recorded too, and move on
    /// any claim they reach. A used-up claim's connection is stopped if its
    /// request went further, and replaced.
    public mutating func wrote(_ id: UInt64, _ range: Range<Int64>) -> [SegmentAction] {
        guard trusts(id) else { return [] }
        let bytes = range.clamped(to: 0..<(total ?? .max))
        guard !bytes.isEmpty else { return [] }
        written.insert(bytes)
        if let known = progress[id] { progress[id] = max(known, range.upperBound) }
        if let index = claims.firstIndex(where: { $0.id == id }) {
            claims[index].position = max(claims[index].position, min(range.upperBound, claims[index].end))
        }
        return settle() + fill()
    }

    /// Connection `id` is gone (finished, failed or aborted); what it did
    /// not fetch is a hole again, and free connections are filled.
    public mutating func ended(_ id: UInt64) -> [SegmentAction] {
        forget(id)
        return fill()
    }

    /// The first connection ended before any answer and another URL may
    /// serve the file (a mirror, R19): the attempt starts again, with a new
    /// connection number. Does nothing once an answer came or while a
    /// connection is open.
    public mutating func reopen() -> [SegmentAction] {
        guard claims.isEmpty, !answered else { return [] }
        started = false
        fanOut = false
        return start()
    }

    /// The server ignored ranges, answered another Content-Range or changed
    /// its validator: every connection but `keeping` is stopped, nothing
    /// written is trusted any more, and one connection fetches from byte 0
    /// (`keeping`, whose body starts at 0, or a new one). `total` is the
    /// file's size as the kept answer gives it (nil: unknown until the new
    /// connection's answer).
    public mutating func fellBack(keeping: UInt64?, total newTotal: Int64?) -> [SegmentAction] {
        let keep = keeping.flatMap { requests[$0] == nil ? nil : $0 }
        var actions: [SegmentAction] = []
        for id in requests.keys.sorted() where id != keep {
            actions.append(.abort(id: id))
            forget(id)
        }
        started = true
        single = true
        fanOut = false
        written = ByteRanges()
        claims = []
        total = newTotal.map { max(0, $0) }
        let id: UInt64
        if let keep {
            id = keep
        } else {
            id = newID()
            actions.append(.open(id: id, range: .from(0)))
        }
        trustedFrom = nextID
        kept = id
        // A reader's window kept by a fall back is the whole download now:
        // it must never be yielded to a reader.
        windows.remove(id)
        requests[id] = .from(0)
        progress[id] = 0
        let end = total ?? .max
        if end > 0 { claims.append(SegmentClaim(id: id, position: 0, end: end)) }
        return actions
    }

    /// A reader wants `range` (R23): its first byte not written is fetched
    /// next, with about `ahead` bytes after it (read ahead). Nothing new
    /// when a connection will reach that byte within `near` bytes (readers
    /// of one region share it) — but once that connection's claim ends less
    /// than `ahead / 2` past the byte, the next window after it opens, so a
    /// sequential reader keeps a connection busy ahead of it. Otherwise a
    /// connection opens at the byte's page, beyond `split` (up to 16 in
    /// all), on a window of `ahead` bytes: cut from the claim the byte is in
    /// (the claim's connection stops there, the rest of the claim is a hole
    /// again) or from the hole it is in. Windows end soon, so readers never
    /// hold connections for long. Nothing while the task is on one
    /// connection (unknown total, fall back) or every byte is written.
    public mutating func want(_ range: Range<Int64>, near: Int64 = 1 << 20,
                              ahead: Int64 = readAhead) -> [SegmentAction] {
        guard started, !single, let total else { return [] }
        let bounds = range.clamped(to: 0..<total)
        guard let first = written.gaps(in: bounds).first?.lowerBound else { return [] }
        guard let index = claims.firstIndex(where: { $0.position <= first && first < $0.end }) else {
            // A hole: from the byte's page, unless its start is closer.
            let before = max(written.ranges.last { $0.upperBound <= first }?.upperBound ?? 0,
                             claims.lazy.map(\.end).filter { $0 <= first }.max() ?? 0)
            return openWindow(at: max(before, first - first % 4096), ahead: ahead)
        }
        let claim = claims[index]
        guard first - claim.position > near else {
            // Served by this claim; the window after it, if the reader nears its end.
            guard claim.end - first < ahead / 2,
                  let next = written.gaps(in: claim.end..<min(total, first + ahead)).first?.lowerBound,
                  !claims.contains(where: { $0.position <= next && next < $0.end }) else { return [] }
            return openWindow(at: next, ahead: ahead)
        }
        guard claims.count < Self.maximumSplit else { return [] }
        // Split where the reader waits, page aligned: never at or below the
        // victim's position, which is more than `near` behind.
        let at = max(claim.position + 1, first - first % 4096)
        claims[index].end = at
        if untold == claim.id { untold = nil }  // the shrink tells it where to stop
        return [.shrink(id: claim.id, end: at)] + openWindow(at: at, ahead: ahead) + fill()
    }

    /// The bytes read ahead of a reader (R23: "the following few MiB").
    public static let readAhead: Int64 = 4 << 20

    /// Bytes handed over by `endgame` so far in this attempt (for the task log).
    public private(set) var handedOver: Int64 = 0

    /// The endgame: a connection is free and nothing is left to plan (every
    /// missing byte is claimed, no claim worth splitting), but one slow
    /// connection would hold the tail for long — a mirror at a thousandth
    /// of another's speed keeps its last segment, which the 1 MiB floor
    /// leaves whole. Its claim is handed to a new connection, which a
    /// faster URL serves (`takeSlot` prefers the mirror with fewest
    /// connections): the slow one keeps what it fetches in `keepSeconds`
    /// and stops there; what it had received past that is thrown away.
    ///
    /// `speeds`: bytes per second of each connection measured long enough
    /// to judge; `expected`: what a new connection may expect (the fastest
    /// this attempt has seen). Only a claim that would take over
    /// `waitSeconds` at its speed, and that a new connection would fetch at
    /// least four times sooner, is handed over.
    public mutating func endgame(speeds: [UInt64: Double], expected: Double, waitSeconds: Double = 2,
                                 keepSeconds: Double = 0.5) -> [SegmentAction] {
        guard started, fanOut, !single, !readsOnly, let total, claims.count < split, expected > 0,
              SegmentPlanner.next(total: total, done: written, claims: claims, minimumSegment: minimumSegment) == nil
        else { return [] }
        var slowest: (index: Int, speed: Double, seconds: Double)?
        for (index, claim) in claims.enumerated() where claim.remaining > 0 {
            guard let speed = speeds[claim.id] else { continue }
            let seconds = Double(claim.remaining) / max(speed, 1)
            if seconds > slowest?.seconds ?? 0 { slowest = (index, speed, seconds) }
        }
        guard let slowest, slowest.seconds > waitSeconds, expected >= 4 * max(slowest.speed, 1) else { return [] }
        let victim = claims[slowest.index]
        let keep = max(Int64(slowest.speed * keepSeconds), 16 << 10)
        let at = (victim.position + keep + 4095) / 4096 * 4096
        guard at < victim.end else { return [] }
        claims[slowest.index].end = at
        if untold == victim.id { untold = nil }
        handedOver += victim.end - at
        let id = newID()
        claims.append(SegmentClaim(id: id, position: at, end: victim.end))
        let range = RequestedRange(start: at, end: victim.end)
        requests[id] = range
        progress[id] = at
        return [.shrink(id: victim.id, end: at), .open(id: id, range: range)]
    }

    /// A connection on `[at, at + ahead)`, cut short at the next written or
    /// claimed byte and the total; none when 16 are open.
    private mutating func openWindow(at: Int64, ahead: Int64) -> [SegmentAction] {
        guard let total, claims.count < Self.maximumSplit else { return [] }
        let nextClaim = claims.lazy.map(\.position).filter { $0 > at }.min()
        let end = min(at + max(ahead, 1), nextWritten(after: at) ?? total, nextClaim ?? total, total)
        guard at < end else { return [] }
        let id = newID()
        claims.append(SegmentClaim(id: id, position: at, end: end))
        requests[id] = RequestedRange(start: at, end: end)
        progress[id] = at
        windows.insert(id)
        return [.openForReader(id: id, range: RequestedRange(start: at, end: end))]
    }

    /// Changes how many connections may fetch at once (clamped to 1…16),
    /// and the smallest segment if given.
    /// More: new ones open at once. Fewer: nothing is stopped, but finished
    /// connections are not replaced while there are `split` or more.
    public mutating func setSplit(_ split: Int, minimumSegment: Int64? = nil) -> [SegmentAction] {
        self.split = Self.clamp(split)
        if let minimumSegment { self.minimumSegment = max(SegmentPlanner.minimumSegment, minimumSegment) }
        return fill()
    }

    // MARK: Internals

    private static func clamp(_ split: Int) -> Int { min(max(split, 1), maximumSplit) }

    private mutating func newID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    private func trusts(_ id: UInt64) -> Bool {
        id < nextID && (id >= trustedFrom || id == kept)
    }

    /// The start of the first written range after `offset`, if any.
    private func nextWritten(after offset: Int64) -> Int64? {
        written.ranges.first { $0.lowerBound > offset }?.lowerBound
    }

    /// A reader's window waits for a connection slot while the windows
    /// hold them all: the first window with no reader waiting in what it
    /// has left (`waiting`: the ranges readers wait for) — it only reads
    /// ahead — stops and gives its slot (R23). Its rest is a hole again.
    /// Twelve random readers of one file at 3 MB/s per connection waited
    /// 1.4 s at the median before: every slot held by 4 MiB of read-ahead
    /// nobody wanted. Nil when every window serves a waiting reader.
    public mutating func yieldWindow(waiting: [Range<Int64>]) -> [SegmentAction]? {
        let idle = claims.filter { windows.contains($0.id) }.sorted { $0.id < $1.id }.first { claim in
            !waiting.contains { $0.overlaps(claim.position..<claim.end) }
        }
        guard let idle else { return nil }
        forget(idle.id)
        return [.abort(id: idle.id)] + fill()
    }

    /// Whether a reading attempt (`readsOnly`) has outlived its readers:
    /// none waits and none has read for `readerIdleSeconds` (they were
    /// killed, or interrupted and gone), so what its windows have left is
    /// fetched for nobody (R23).
    public func readersGone(waiting: Int, idleSeconds: Double) -> Bool {
        readsOnly && waiting == 0 && idleSeconds >= Self.readerIdleSeconds
    }

    private mutating func forget(_ id: UInt64) {
        windows.remove(id)
        claims.removeAll { $0.id == id }
        requests[id] = nil
        progress[id] = nil
    }

    /// Moves every claim past written bytes at its position; a claim used
    /// up is closed, its connection stopped if its request goes further.
    private mutating func settle() -> [SegmentAction] {
        var actions: [SegmentAction] = []
        var index = 0
        while index < claims.count {
            let claim = claims[index]
            if let run = written.range(containing: claim.position) {
                claims[index].position = min(claim.end, max(claim.position, run.upperBound))
            }
            guard claims[index].position >= claims[index].end else { index += 1; continue }
            let id = claim.id
            if let request = requests[id] {
                let requestEnd = request.end ?? total ?? .max
                if (progress[id] ?? request.start) < requestEnd { actions.append(.abort(id: id)) }
            }
            forget(id)
        }
        return actions
    }

    /// Opens connections on the planner's assignments while there are
    /// fewer than `split`.
    private mutating func fill() -> [SegmentAction] {
        guard started, fanOut, !single, !readsOnly, let total else { return [] }
        var actions: [SegmentAction] = []
        while claims.count < split, let assignment = SegmentPlanner.next(total: total, done: written, claims: claims,
                                                                              minimumSegment: minimumSegment) {
            let id = newID()
            if case .steal(let victim, let at, _) = assignment { actions.append(.shrink(id: victim, end: at)) }
            SegmentPlanner.apply(assignment, newID: id, to: &claims)
            let range = assignment.range
            // A lone connection on the tail is a resume and asks `bytes=N-`
            // (R52); every other segment a closed range (R18).
            let resume = claims.count == 1 && range.upperBound == total
            let request = resume ? RequestedRange.from(range.lowerBound)
                                 : RequestedRange(start: range.lowerBound, end: range.upperBound)
            requests[id] = request
            progress[id] = range.lowerBound
            actions.append(.open(id: id, range: request))
        }
        return actions
    }
}
