import CCurl
import CLinux
import DownloadFSCore
import Foundation
import Glibc

/// One attempt of one task on the engine thread (R18): the data file, the
/// connections fetching it, the pure `SegmentedAttempt` that decides which
/// bytes each one fetches, the task's speed limit (R30, R31) and its
/// checkpoints (R51). Readers waiting for bytes (R23) get them first:
/// `serveReaders` opens a connection where they wait (`SegmentedAttempt.want`)
/// when a reader comes (`fetchReads`), a connection ends, and at each tick;
/// an attempt with `readsOnly` (a paused or queued task being read)
/// fetches nothing else and ends, `.stopped`, once no reader waits.
///
/// Connections call in from curl's callbacks, where no handle may be added
/// to or removed from the multi handle: connections to open wait in
/// `parked` (also while their host has no free slot), dropped ones in
/// `leaving`, until the engine calls `settle` after `curl_multi_perform`.
final class TaskDownload {
    /// R51: a checkpoint at least every 8 MiB (or 2 s) of a transfer.
    static let checkpointBytes: Int64 = 8 << 20
    /// Sooner, from 1 MiB, whenever the previous checkpoint has been reported:
    /// checkpoints then follow each other as fast as the disk syncs, so a
    /// crash usually loses about one sync's worth of bytes rather than up to
    /// 8 MiB plus the sync.
    static let eagerCheckpointBytes: Int64 = 1 << 20
    /// The most bytes per connection written but not yet covered by a
    /// reported checkpoint before reading waits for the disk (`syncLagging`).
    /// With what curl and the staging buffer may hold on top, a crash costs
    /// at most `checkpointBytes` per connection fetched again. It only bites
    /// when the network outruns fdatasync and the commit.
    static let lagBytes = checkpointBytes - Int64(EasyTransfer.readBufferSize + EasyTransfer.stagingCapacity)
    static let checkpointSeconds = 2.0
    /// Files up to this size are neither sized nor reserved (`prepare`).
    static let reserveAbove: Int64 = 1 << 20

    let request: TransferRequest
    let serial: UInt64
    let live: LiveProgress
    private let fd: Int32
    private let multi: UnsafeMutableRawPointer
    private let slots: HostSlots
    private let readerSlots: HostSlots
    private let trust: TLSTrust
    private unowned(unsafe) let delegate: EngineDelegate
    private let sync: SyncProgress
    private let lane: Checkpointer.Lane

    private var attempt: SegmentedAttempt
    /// How many connections the task may use; an adaptive one is judged at each tick.
    private var policy: SplitPolicy
    /// When the first answer came, and what was written then (for `policy`).
    private var answeredAt: (time: Double, written: Int64)?
    /// The total and validators every answer is checked against: the stored
    /// ones, or those of this attempt's first answer.
    private var known: StoredProgress
    private var connections: [UInt64: EasyTransfer] = [:]
    /// The task's URLs (R19): `request.url` first, then its mirrors, each
    /// with the key its connections are counted by (`--max-connections-per-host`).
    private let urls: [String]
    private let hosts: [String]
    /// Which URLs are still used and which rest after a transient failure
    /// (R19: a mirror that fails for good is dropped; back-off per mirror).
    private var mirrors: MirrorSet
    /// Spreads the mirrors' back-offs.
    private var random: SplitMix64
    private var connectionBackOff = ConnectionBackOff()
    /// The URL whose answer set `known`; the others are checked against it.
    private var primary = 0
    /// Connections the attempt opened that wait for `settle` and a host slot.
    /// `stop`: where it must stop short of its request (a steal before it
    /// opened); `reader`: opened for a waiting reader, it takes a reader's
    /// slot (R23).
    private var parked: [(id: UInt64, range: RequestedRange, stop: Int64?, reader: Bool)] = []
    /// Open connections that took a reader's slot.
    private var readers: Set<UInt64> = []
    /// Connections dropped inside a callback, removed at `settle`.
    private var leaving: [EasyTransfer] = []
    /// Where its connections get their curl handles and staging buffers.
    private let pool: TransferPool
    /// The first accepted answer (of this generation) went to the delegate.
    private var reported = false
    /// The size the data file was prepared for.
    private var prepared: Int64?
    private var limiter = RateLimiter()
    private var receivedData = false
    private var lastCheckpointCount: Int64
    private var lastCheckpointTime: Double
    /// The fastest a connection of this attempt has gone (bytes per
    /// second), what a new one may expect in the endgame; and the bytes
    /// connections received past where they were told to stop.
    private var bestSpeed = 0.0
    private var discarded: Int64 = 0
    /// The last failure of a connection, for the outcome if none is left.
    private var lastFailure: TransferFailure?
    /// Set once the attempt is decided; reported when no connection is left.
    private var outcome: TransferOutcome?
    private(set) var finished = false

    /// Plans the attempt on its data file `file` (opened by `DataFile.open`),
    /// which it owns from now on.
    init(request: TransferRequest, file: DataFile, serial: UInt64, live: LiveProgress, multi: UnsafeMutableRawPointer,
         slots: HostSlots, readerSlots: HostSlots, trust: TLSTrust, checkpointer: Checkpointer, pool: TransferPool,
         delegate: EngineDelegate) {
        self.request = request
        self.pool = pool
        self.trust = trust
        self.serial = serial
        self.live = live
        self.multi = multi
        self.slots = slots
        self.readerSlots = readerSlots
        self.delegate = delegate
        urls = [request.url] + request.mirrors
        hosts = urls.map(HostKey.of)
        mirrors = MirrorSet(count: urls.count, retry: request.retry)
        random = SplitMix64(seed: UInt64(bitPattern: request.id) &* 0x9E37_79B9 ^ serial)
        fd = file.fd
        known = request.known
        policy = request.split
        attempt = SegmentedAttempt(total: request.known.total, held: request.held,
                                   split: request.isFTP ? 1 : request.split.current(runningFor: 0, bytesPerSecond: 0),
                                   minimumSegment: request.split.minimumSegment, readsOnly: request.readsOnly)
        lane = checkpointer.lane()
        sync = SyncProgress(held: attempt.written, wake: checkpointer.wake)
        lastCheckpointCount = attempt.written.count
        lastCheckpointTime = MonotonicClock.now()
        live.show(attempt.written)
        live.resetSpeed()
    }

    // MARK: - the engine's calls (outside curl's callbacks)

    func start() {
        if let total = attempt.total { prepare(total) }
        apply(attempt.start())
        fetchReads()
    }

    /// Readers wait for bytes (R23): what they wait for is fetched next.
    func fetchReads() {
        serveReaders()
        settle()
    }

    /// Removes dropped connections, opens parked ones while their host has a
    /// slot, and reports the outcome once no connection is left.
    func settle() {
        for transfer in leaving { remove(transfer) }
        leaving.removeAll()
        // Readers' connections take readers' slots; the others wait for theirs.
        while outcome == nil, let index = parked.firstIndex(where: { $0.reader }),
              let url = takeSlot(reader: true) ?? (yieldWindow() ? takeSlot(reader: true) : nil) {
            let next = parked.remove(at: index)
            readers.insert(next.id)
            open(next.id, next.range, stop: next.stop, from: url)
        }
        while outcome == nil, let index = parked.firstIndex(where: { !$0.reader }), let url = takeSlot(reader: false) {
            let next = parked.remove(at: index)
            open(next.id, next.range, stop: next.stop, from: url)
        }
        live.connections.store(connections.count, ordering: .relaxed)
        if outcome == nil && connections.isEmpty && parked.isEmpty && !readersWaitOutAPause {
            outcome = endOfAttempt()
        }
        if let outcome, connections.isEmpty, !finished { finish(outcome) }
    }

    /// A reading attempt whose last connection failed while readers wait:
    /// it stays, with no connection, until its pause is over and the tick
    /// asks for their ranges again (`connectionFailed`).
    private var readersWaitOutAPause: Bool {
        request.readsOnly && live.readersWaiting.load(ordering: .relaxed) > 0
            && !connectionBackOff.allowsOpening(at: MonotonicClock.now())
    }

    /// A reader's window waits for a slot: a window that only reads ahead
    /// gives way (`SegmentedAttempt.yieldWindow`), its slot freed at once.
    /// True if one did.
    private func yieldWindow() -> Bool {
        guard let actions = attempt.yieldWindow(waiting: live.pendingReads()) else { return false }
        apply(actions)
        for transfer in leaving { remove(transfer) }
        leaving.removeAll()
        return true
    }

    /// Has what readers wait for fetched next (R23); nothing when none
    /// waits, or while a failed connection's pause lasts (`ConnectionBackOff`).
    private func serveReaders() {
        guard outcome == nil, live.readersWaiting.load(ordering: .relaxed) > 0,
              connectionBackOff.allowsOpening(at: MonotonicClock.now()) else { return }
        for range in live.pendingReads() { apply(attempt.want(range)) }
    }

    /// curl finished connection `transfer` with `code`.
    func connectionEnded(_ transfer: EasyTransfer, code: CURLcode) {
        guard remove(transfer) else { return }
        measure(transfer, now: MonotonicClock.now())
        switch transfer.end(for: code) {
        case .dropped:
            break
        case .done:
            connectionBackOff.fetched()
            apply(attempt.ended(transfer.id))
        case .alreadyComplete(let total):
            end(.completed(bytes: total, total: total))
        case .restart(let reason):
            end(.restart(reason: reason))
        case .writeFailed(let err):
            endWithWriteError(err)
        case .failed(let failure):
            connectionFailed(transfer.id, on: transfer.mirror, failure)
        }
        // Its bytes may be what a reader waits for, or the end of its window.
        fetchReads()
    }

    /// Stops every connection (pause, cancel, unmount): what they wrote is
    /// flushed and reported as `.stopped` once synced.
    func stop() {
        flushAll()
        end(.stopped(ranges: attempt.written))
        settle()
    }

    /// The periodic work: writes out what is staged, samples the speed and
    /// checkpoints once 2 s have passed (R51). A failed write or sync ends
    /// the attempt (R54).
    func tick(now: Double) {
        if let failure = sync.failure { endWithWriteError(failure) }
        flushAll()
        live.sample(at: now)
        adapt(now: now)
        endgame(now: now)
        stopIdleWindows(now: now)
        if outcome == nil && attempt.written.count != lastCheckpointCount
            && now - lastCheckpointTime >= Self.checkpointSeconds {
            checkpoint(now: now)
        }
        fetchReads()
    }

    /// Resumes held connections the task now allows; true if one stays held.
    func resumeHeld(now: Double) -> Bool {
        var held = false
        for transfer in connections.values where transfer.held {
            transfer.resumeIfAllowed(now: now)
            held = held || transfer.held
        }
        return held
    }

    /// The task's speed limit (0: none), shared by all its connections.
    func setSpeedLimit(_ bytesPerSecond: Int64) {
        limiter.setLimit(max(0, bytesPerSecond), now: MonotonicClock.now())
    }

    func setSplit(_ split: SplitPolicy) {
        guard !request.isFTP else { return }
        policy = split
        apply(attempt.setSplit(split.current(runningFor: 0, bytesPerSecond: 0), minimumSegment: split.minimumSegment))
        settle()
    }

    /// Adapts the attempt to the speed seen since the first answer:
    /// - an adaptive split opens more connections once one is judged slow
    ///   (`SplitPolicy`); once opened they stay;
    /// - a steal must leave each half at least half a second of a
    ///   connection's work: a shorter one finishes before a new request
    ///   would get going, and every steal cuts the victim's request short,
    ///   throwing away what the server already sent past the cut (on
    ///   loopback several MiB of socket buffers each time); under a speed
    ///   limit none at all.
    private func adapt(now: Double) {
        guard !request.isFTP, outcome == nil, let answeredAt, connectionBackOff.allowsOpening(at: now) else { return }
        let seconds = now - answeredAt.time
        guard seconds > 0.2 else { return }
        let speed = Double(attempt.written.count - answeredAt.written) / seconds
        let split = max(attempt.split, policy.current(runningFor: seconds, bytesPerSecond: speed))
        let perConnection = speed / Double(max(1, connections.count))
        // Under a speed limit more connections fetch no sooner, and a held
        // connection's socket buffers are full: no steals (holes still are).
        let floor = limiter.limit > 0 ? Int64.max / 4 : max(policy.minimumSegment, Int64(perConnection / 2))
        if split != attempt.split || floor != attempt.minimumSegment {
            apply(attempt.setSplit(split, minimumSegment: floor))
        }
    }

    /// Notes how fast `transfer` has gone (`bestSpeed`).
    private func measure(_ transfer: EasyTransfer, now: Double) {
        if let speed = transfer.speed(now: now) { bestSpeed = max(bestSpeed, speed) }
    }

    /// A slow connection holding the tail while a faster one could fetch it
    /// is handed over (`SegmentedAttempt.endgame`). Not under a speed
    /// limit: connections are slow by design then, and a new one would
    /// fetch no sooner.
    private func endgame(now: Double) {
        guard outcome == nil, limiter.limit == 0, connectionBackOff.allowsOpening(at: now) else { return }
        var speeds: [UInt64: Double] = [:]
        for transfer in connections.values where !transfer.dropped {
            guard let speed = transfer.speed(now: now) else { continue }
            speeds[transfer.id] = speed
            bestSpeed = max(bestSpeed, speed)
        }
        apply(attempt.endgame(speeds: speeds, expected: bestSpeed))
    }

    /// A reading attempt ends with its readers (`SegmentedAttempt.readersGone`).
    private func stopIdleWindows(now: Double) {
        guard outcome == nil, attempt.readersGone(waiting: live.readersWaiting.load(ordering: .relaxed),
                                                  idleSeconds: now - live.lastRead) else { return }
        flushAll()
        end(.stopped(ranges: attempt.written))
    }

    // MARK: - connections' calls (inside curl's callbacks)

    /// What a connection does with an answer its task can use.
    enum Answer {
        /// Write the body into the range the connection asked for.
        case write
        /// Write the body from byte 0 to its end: the task starts over on it.
        case writeWhole
        /// Stop; nothing of it is written.
        case drop
    }

    /// Connection `transfer` got an answer `decision` judged against `known`
    /// (R52 for its range): the first one tells the task the total and
    /// validators; one that cannot be spliced into the file (200 to a range,
    /// another Content-Range, a changed validator) makes the task go on with
    /// one connection from zero (R18).
    func answered(_ transfer: EasyTransfer, head: ResponseHead, summary: ResponseSummary,
                  decision: ResumeDecision) -> Answer {
        guard !transfer.dropped, mirrors.isLive(transfer.mirror) else {
            // A dropped connection or mirror: its answer counts only while it is live (R19).
            apply(attempt.ended(transfer.id))
            return .drop
        }
        switch decision {
        case .append(let total):
            mirrors.answered(transfer.mirror)
            if !reported {
                reported = true
                answeredAt = answeredAt ?? (MonotonicClock.now(), attempt.written.count)
                primary = transfer.mirror
                if attempt.written.isEmpty { (known.etag, known.lastModified) = (head.etag, head.lastModified) }
                known.total = total ?? known.total
                delegate.transferStarted(request.id, serial: serial, response: summary, decision: decision)
            }
            if let total { prepare(total) }
            apply(attempt.responded(transfer.id, total: total, ranged: head.status == 206))
            return .write
        case .startOver(_, let reason) where request.readsOnly:
            // Not this attempt's to decide: the task's next download starts over.
            end(.failed(.refused("the file changed on the server (\(reason)); resume the task to fetch it again"),
                        ranges: attempt.written, receivedData: receivedData))
            return .drop
        case .startOver(let total, let reason):
            if reported, transfer.mirror != primary, drop(mirror: transfer.mirror, reason) {
                // Another mirror's file is not the first answer's (R19).
                apply(attempt.ended(transfer.id))
                return .drop
            }
            return fallBack(on: transfer, head: head, summary: summary, total: total, reason: reason)
        case .alreadyComplete, .fail:
            return .drop
        }
    }

    /// An answer that cannot be spliced into the file (R18): every other
    /// connection is dropped, nothing written is trusted, and one connection
    /// goes on from zero — `transfer` if its body starts at byte 0, else a
    /// new plain GET. The task log says why.
    private func fallBack(on transfer: EasyTransfer, head: ResponseHead, summary: ResponseSummary,
                          total: Int64?, reason: String) -> Answer {
        let keep = ResumeDecision.bodyStartsAtZero(head)
        let several = connections.count + parked.count > 1
        apply(attempt.fellBack(keeping: keep ? transfer.id : nil, total: keep ? total : nil))
        // Readers must not be served the old version while the file is cut (R23).
        live.restart()
        if ftruncate(fd, 0) != 0 { endWithWriteError(errno) }
        prepared = nil
        lastCheckpointCount = 0
        known = StoredProgress(offset: 0, total: keep ? total : nil,
                               etag: keep ? head.etag : nil, lastModified: keep ? head.lastModified : nil)
        reported = keep
        if keep { primary = transfer.mirror }
        let line = several ? "\(reason); going on with one connection" : reason
        let (id, serial, delegate) = (request.id, serial, delegate)
        sync.restart {
            delegate.transferStarted(id, serial: serial, response: summary,
                                     decision: .startOver(total: keep ? total : nil, reason: line))
        }
        guard keep else { return .drop }
        if let total { prepare(total) }
        apply(attempt.responded(transfer.id, total: total, ranged: false))
        return .writeWhole
    }

    /// `transfer` wrote `range` into the data file.
    func wrote(_ transfer: EasyTransfer, _ range: Range<Int64>) {
        receivedData = true
        apply(attempt.wrote(transfer.id, range))
        let written = attempt.written
        sync.wrote(written)
        live.show(written)
        let unsynced = written.count - lastCheckpointCount
        if unsynced >= Self.checkpointBytes || (unsynced >= Self.eagerCheckpointBytes && !sync.inFlight) {
            checkpoint(now: MonotonicClock.now())
        }
    }

    /// Whether the task lets a connection take `count` more bytes now: its
    /// speed limit, and the disk keeping up (`syncLagging`).
    func admits(_ count: Int) -> Bool {
        if syncLagging && !waitForDisk() {
            sync.hold()
            return false
        }
        guard limiter.limit > 0 else { return true }
        let now = MonotonicClock.now()
        guard limiter.allows(now: now) else { return false }
        limiter.consume(Int64(count), now: now)
        return true
    }

    /// Whether a held connection may go on.
    func admits(now: Double) -> Bool {
        limiter.allows(now: now) && !syncLagging
    }

    /// The size of curl's reads for a new connection: under a speed limit
    /// about 1/8 s of it, so the limiter's steps stay small. curl refuses a
    /// new size once a transfer has its buffer, so it is set at the open.
    private var bufferSize: Int {
        let limit = limiter.limit
        return limit > 0 ? min(512 * 1024, max(4096, Int(limit / 8))) : EasyTransfer.readBufferSize
    }

    // MARK: - internals

    /// Carries out the attempt's actions. Safe inside callbacks: opens and
    /// removals wait for `settle`.
    private func apply(_ actions: [SegmentAction]) {
        for action in actions {
            switch action {
            case .open(let id, let range):
                parked.append((id, range, nil, false))
            case .openForReader(let id, let range):
                parked.append((id, range, nil, true))
            case .shrink(let id, let end):
                connections[id]?.stop(at: end)
                if let index = parked.firstIndex(where: { $0.id == id }) {
                    // Not asked yet: a closed range is asked shorter (no
                    // bytes sent past its end to throw away); an open one
                    // stays a resume (R52) and is told where to stop.
                    let range = parked[index].range
                    if range.end != nil {
                        parked[index].range = RequestedRange(start: range.start, end: end)
                    } else {
                        parked[index].stop = min(parked[index].stop ?? .max, end)
                    }
                }
            case .abort(let id):
                if let transfer = connections[id], !transfer.dropped {
                    transfer.drop()
                    leaving.append(transfer)
                }
                parked.removeAll { $0.id == id }
            }
        }
    }

    private func open(_ id: UInt64, _ range: RequestedRange, stop: Int64?, from url: Int) {
        do {
            let transfer = try EasyTransfer(id: id, url: urls[url], mirror: url, range: range, fd: fd, owner: self,
                                            pool: pool)
            let validators = validators(for: url)
            if let failure = transfer.configure(request.connection, known: validators, trust: trust,
                                                 bufferSize: bufferSize) {
                releaseSlot(of: id, url)
                return connectionFailed(id, on: url, failure)
            }
            if let stop { transfer.stop(at: stop) }
            connections[id] = transfer
            transfer.attach(to: multi)
        } catch {
            releaseSlot(of: id, url)
            connectionFailed(id, on: url, error)
        }
    }

    /// The URL the next connection fetches from, its host slot taken: the
    /// first live one for an attempt's first request (its answer decides
    /// the file), then the live one with the fewest connections whose host
    /// has a slot, so connections spread over the mirrors (R19). Nil when
    /// none may take one now. A reader's window takes a reader's slot (R23).
    private func takeSlot(reader: Bool) -> Int? {
        var open = Array(repeating: 0, count: urls.count)
        for transfer in connections.values { open[transfer.mirror] += 1 }
        // With nothing open yet every count is 0, so the primary goes first.
        let now = MonotonicClock.now()
        let ordered = urls.indices.filter { mirrors.isReady($0, now: now) }
            .sorted { (open[$0], $0 == primary ? 0 : 1, $0) < (open[$1], $1 == primary ? 0 : 1, $1) }
        let pool = reader ? readerSlots : slots
        return ordered.first { pool.take(hosts[$0]) }
    }

    /// Gives back the host slot connection `id` took.
    private func releaseSlot(of id: UInt64, _ url: Int) {
        (readers.remove(id) == nil ? slots : readerSlots).release(hosts[url])
    }

    /// What an answer from `url` is checked against and its If-Range built
    /// from: the first answer's validators; for another mirror only a strong
    /// ETag and the total, since mirrors rarely share modification times.
    private func validators(for url: Int) -> StoredProgress {
        guard url != primary, reported else { return known }
        var validators = known
        validators.lastModified = nil
        return validators
    }

    func validators(for transfer: EasyTransfer) -> StoredProgress {
        validators(for: transfer.mirror)
    }

    /// Stops using mirror `url` (R19) and says why in the task log. False
    /// when it is the last one left: then the task's attempt fails instead.
    private func drop(mirror url: Int, _ reason: String) -> Bool {
        guard mirrors.drop(url) else { return false }
        dropped(mirror: url, reason)
        return true
    }

    /// Mirror `url` is dropped: the task log says why, and its other
    /// connections stop (their bytes go to the live mirrors), so nothing it
    /// answers later is used and none of its failures speaks for the task.
    private func dropped(mirror url: Int, _ reason: String) {
        delegate.transferDroppedMirror(request.id, serial: serial, url: urls[url], reason: reason)
        if url == primary, !reported, let next = mirrors.firstLive { primary = next }
        for transfer in connections.values where transfer.mirror == url && !transfer.dropped {
            transfer.drop()
            leaving.append(transfer)
            apply(attempt.ended(transfer.id))
        }
    }

    /// Takes `transfer` out of the multi handle and frees its host slot;
    /// false if it was already out.
    @discardableResult
    private func remove(_ transfer: EasyTransfer) -> Bool {
        guard connections[transfer.id] === transfer else { return false }
        connections[transfer.id] = nil
        discarded += transfer.discarded
        transfer.detach(from: multi)
        releaseSlot(of: transfer.id, transfer.mirror)
        return true
    }

    /// A connection failed. With mirrors (R19), `MirrorSet` judges the
    /// mirror: dropped for good, or resting while the others take its bytes
    /// (a first request is made again on the next one). Otherwise, while
    /// others fetch, the task goes on with one connection fewer (a server
    /// that limits connections, a transient error); its bytes are taken by
    /// the next connection that frees up. The last one's failure is the
    /// attempt's (R53 decides what follows).
    private func connectionFailed(_ id: UInt64, on mirror: Int, _ failure: TransferFailure) {
        let now = MonotonicClock.now()
        let jitter = Double(random.next() >> 11) * 0x1p-53
        switch mirrors.failed(mirror, failure, now: now, jitter: jitter) {
        case .ignored:
            apply(attempt.ended(id))
            return
        case .dropped(let reason):
            lastFailure = failure
            dropped(mirror: mirror, reason)
            apply(attempt.ended(id))
            apply(attempt.reopen())
            return
        case .backingOff where connections.count + parked.count > 0 || mirrors.anyReady(now: now):
            lastFailure = failure
            apply(attempt.ended(id))
            apply(attempt.reopen())
            return
        case .backingOff, .attemptFails:
            lastFailure = failure
        }
        if request.readsOnly, ConnectionBackOff.readingAttemptWaits(
            after: failure, readersWaiting: live.readersWaiting.load(ordering: .relaxed)) {
            // Its readers wait through the server's trouble; their ranges are asked again after a pause.
            lastFailure = failure
            connectionBackOff.failed(failure, now: now, jitter: jitter, policy: request.retry)
            apply(attempt.ended(id))
            return
        }
        let others = connections.count + parked.count
        if others > 0 {
            // The attempt goes on; no new connection before a pause (R53).
            connectionBackOff.failed(failure, now: now, jitter: jitter, policy: request.retry)
            apply(attempt.setSplit(others))
            apply(attempt.ended(id))
        } else {
            end(.failed(failure, ranges: attempt.written, receivedData: receivedData))
        }
    }

    /// Writes out what every connection has staged; a failed write ends the
    /// attempt (R54).
    private func flushAll() {
        for transfer in connections.values where outcome == nil {
            if !transfer.flush(), let err = transfer.writeErrno { endWithWriteError(err) }
        }
    }

    /// The data file could not be written or synced: the attempt ends, and
    /// only the last checkpoint that succeeded is trusted (R51, R54).
    private func endWithWriteError(_ err: Int32) {
        end(.failed(DataFile.writeFailure(err), ranges: sync.committed, receivedData: receivedData))
    }

    /// The attempt is decided: every connection is dropped.
    private func end(_ result: TransferOutcome) {
        guard outcome == nil else { return }
        outcome = result
        parked.removeAll()
        for transfer in connections.values where !transfer.dropped {
            transfer.drop()
            leaving.append(transfer)
        }
    }

    /// What an attempt whose last connection is gone came to.
    private func endOfAttempt() -> TransferOutcome {
        if request.readsOnly && !attempt.isComplete {
            // Every reader is served (a waiting one would have a connection).
            return .stopped(ranges: attempt.written)
        }
        if let total = attempt.total {
            if attempt.isComplete { return .completed(bytes: total, total: total) }
        } else if lastFailure == nil {
            // One connection to an unknown end, ended well: the file ends here.
            let bytes = attempt.written.prefixEnd
            return .completed(bytes: bytes, total: bytes)
        }
        return .failed(lastFailure ?? .partialBody, ranges: attempt.written, receivedData: receivedData)
    }

    /// Readies the data file for `total` bytes: anything beyond is cut off,
    /// and the blocks are reserved (`fallocate`, else a sparse file), so
    /// segments land in place and the disk cannot run out mid-file on
    /// filesystems that reserve. Never cuts bytes below `total`. A file of
    /// at most `reserveAbove` is left to grow as its one connection writes
    /// it: reserving its few blocks costs more than it saves (they are then
    /// converted again when written), sizing it is a call per small file
    /// (1,000 × 64 KiB: about 3 % of the engine thread) that nothing reads
    /// (a reader waits for written ranges, not for the file's size; a mount
    /// cuts the file to its trusted ranges either way, R51), and a full
    /// disk still shows as a write error (R54).
    private func prepare(_ total: Int64) {
        guard prepared != total else { return }
        prepared = total
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        let size = Int64(info.st_size)
        if size > total { _ = ftruncate(fd, off_t(total)) }
        guard size < total, total > Self.reserveAbove else { return }
        // Reserved where it pays; else (no fallocate here, or no room) a
        // sparse file, and a full disk shows as a write error (R54).
        if clinux_fallocate(fd, 0, total) != 0 { _ = ftruncate(fd, off_t(total)) }
    }

    /// True when the bytes written but not yet covered by a reported
    /// checkpoint reach `lagBytes` per connection while a checkpoint is under
    /// way: the network is outrunning `fdatasync`. Reading then waits for the
    /// disk, so a crash never costs more than 8 MiB per connection fetched
    /// again (R51, R18).
    private var syncLagging: Bool {
        var staged = 0
        for transfer in connections.values { staged += transfer.staged }
        return sync.lags(written: attempt.written.count + Int64(staged), by: Self.lagBytes * Int64(max(1, connections.count)))
    }

    /// Waits (blocking the engine thread, which then reads no socket) for
    /// the disk to catch up; true once it has. Gives up after 50 ms, and the
    /// connection is then paused instead (`held`), so a slow disk never
    /// stalls the other transfers or the engine's commands for long. Waiting
    /// here rather than pausing at once spares curl copying what it had read.
    private func waitForDisk() -> Bool {
        let deadline = MonotonicClock.now() + 0.05
        while syncLagging {
            let left = deadline - MonotonicClock.now()
            guard left > 0, sync.waitForEnd(timeout: left) else { return !syncLagging }
        }
        return true
    }

    /// Syncs the data file off the engine thread and reports every range
    /// written before the sync began (R51).
    private func checkpoint(now: Double) {
        lastCheckpointCount = attempt.written.count
        lastCheckpointTime = now
        let copy = dup(fd)
        guard copy >= 0 else { return }
        let (id, serial, delegate, sync, live) = (request.id, serial, delegate, sync, live)
        sync.started()
        lane.checkpoint(copy, snapshot: { sync.snapshot() }, synced: { fd, snapshot in
            // Clean now: the pages behind the writer go, and the next
            // writes reuse them (`WrittenCacheRelease`).
            for range in sync.releasable(after: snapshot, readerIdle: MonotonicClock.now() - live.lastRead) {
                _ = clinux_drop_cached(fd, range.lowerBound, Int64(range.count))
            }
        }) { result in
            switch result {
            case .success(let snapshot):
                sync.ended(committed: snapshot) {
                    delegate.transferCheckpointed(id, serial: serial, ranges: snapshot.ranges)
                }
            case .failure(let error):
                sync.ended(failure: error.errno)
            }
        }
    }

    /// Hands the descriptor to the checkpointer: it is synced (a whole file
    /// with its group) and closed, and only then is the outcome reported
    /// (after any earlier checkpoint).
    private func finish(_ outcome: TransferOutcome) {
        finished = true
        live.connections.store(0, ordering: .relaxed)
        let (id, serial, delegate, sync, live) = (request.id, serial, delegate, sync, live)
        if attempt.handedOver > 0 {
            delegate.transferNoted(id, serial: serial, line: "endgame: slow connections handed "
                + "\(Units.bytes(attempt.handedOver)) to faster ones; \(Units.bytes(discarded)) received past "
                + "where connections were told to stop was thrown away")
        }
        // `open`: the attempt's descriptor while it is still open; nil once
        // the group flusher closed it (a descriptor number may be reused).
        let report: @Sendable (_ open: Int32?, _ err: Int32) -> Void = { open, err in
            var outcome = outcome
            // Any failed sync of this attempt, this one or an earlier
            // checkpoint's, leaves only the last successful checkpoint
            // trusted (R51): never the ranges that were asked for.
            if let failed = err != 0 ? err : sync.failure {
                outcome = .failed(.writeError(errno: failed, message: String(cString: strerror(failed))),
                                  ranges: sync.committed, receivedData: false)
            }
            // Every checkpoint of the attempt has run (the lane is serial):
            // the outcome's ranges are all the task will trust.
            // Readers must not be served the zeros of the cut (R23): the
            // file's generation moves on first.
            if case .failed(let failure, let ranges, _) = outcome, failure.isDiskFull, let open {
                live.restart()
                live.show(ranges)
                DataFile.dropUntrusted(open, keeping: ranges)
            }
            delegate.transferFinished(id, serial: serial, outcome: outcome)
        }
        // A whole file waits for its group's flush out of its slot (the
        // loop shows it `verifying`); a stopped or failed one is synced
        // alone, as its count must be before it is shown (R51).
        if case .completed = outcome {
            delegate.transferSyncing(id, serial: serial)
            // No checkpoint under way means every one of this attempt has
            // reported (`SyncProgress` reports before it counts one ended),
            // so nothing keeps the finish behind, and at most
            // `eagerCheckpointBytes` are left to write back (`wrote` starts a
            // checkpoint past that whenever none is under way): a small
            // file's writeback starts on this thread without waiting.
            lane.syncInGroup(fd, direct: !sync.inFlight) { err in report(nil, err) }
        } else {
            lane.sync(fd, then: report)
        }
    }
}
