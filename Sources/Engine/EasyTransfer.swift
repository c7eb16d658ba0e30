import CCurl
import DownloadFSCore
import Foundation
import Glibc
import Synchronization

/// One attempt of one task: a curl easy handle, the partial file it writes
/// with `pwrite`, and the parsing of the response head.
///
/// Confined to the engine thread, like the `EasyHandle` of
/// swift-corelibs-foundation: curl calls back into it only from
/// `curl_multi_perform`, which only the engine thread runs.
final class EasyTransfer {
    /// R51: a checkpoint at least every 8 MiB (or 2 s) of a transfer.
    static let checkpointBytes: Int64 = 8 << 20
    /// Sooner, from 1 MiB, whenever the previous checkpoint has been reported:
    /// checkpoints then follow each other as fast as the disk syncs, so a
    /// crash usually loses about one sync's worth of bytes rather than up to
    /// 8 MiB plus the sync.
    static let eagerCheckpointBytes: Int64 = 1 << 20
    /// The most bytes written but not yet covered by a reported checkpoint
    /// before reading waits for the disk (`syncLagging`). With what curl and
    /// the staging buffer may hold on top, a crash costs at most
    /// `checkpointBytes` fetched again. It only bites when the network
    /// outruns fdatasync and the commit: on the loopback benchmark a 1 GiB
    /// download takes about a third longer than without it.
    static let lagBytes = checkpointBytes - Int64(readBufferSize + stagingCapacity)
    static let checkpointSeconds = 2.0
    /// curl's receive buffer (CURLOPT_BUFFERSIZE, at most 10 MiB). Big reads
    /// drain the socket in one call: on loopback 1-4 MiB cut the time per GiB
    /// by a quarter to a third against 512 KiB. Only the part a read fills is
    /// touched. What curl has read and not yet handed over is lost in a
    /// crash, so it counts against the 8 MiB bound (`lagBytes`).
    static let readBufferSize = 2 << 20

    let request: TransferRequest
    let serial: UInt64
    let live: LiveProgress
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// curl's own sentence for a failure (CURLOPT_ERRORBUFFER), often more
    /// precise than its code's text.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    let fd: Int32
    private(set) var writeOffset: Int64

    // The response being received (reset at each status line: redirects,
    // 100-continue).
    private var headers: [String: String] = [:]
    private var responses = 0
    private(set) var decision: ResumeDecision?
    private(set) var summary: ResponseSummary?
    private var abortFailure: TransferFailure?
    /// A start-over whose body does not begin at byte 0: stop and ask again from 0.
    private var restartReason: String?
    private var writeErrno: Int32?
    private(set) var receivedData = false

    /// Body bytes received but not yet written. curl hands the write
    /// callback at most 16 KiB at a time (CURL_MAX_WRITE_SIZE) whatever its
    /// read size, and a pwrite per piece costs a syscall and small page-cache
    /// folios. Pieces are gathered here and written in blocks aligned to the
    /// capacity, and at every engine tick (0.25 s) so a slow transfer still
    /// shows its bytes. 128 KiB: on the benchmark VM writes of 1 MiB and more
    /// were 2-4x slower (large folios come from memory the host has taken
    /// back), 64-256 KiB the fastest. Allocated at the first body byte (an
    /// attempt that fails before has nothing to free).
    static let stagingCapacity = 128 << 10
    private var staging: UnsafeMutableRawPointer?
    private var staged = 0

    private var lastCheckpointBytes: Int64
    private var lastCheckpointTime: Double
    /// Checkpoints under way and the last count reported.
    private let sync: SyncProgress
    /// This attempt's serial lane on the checkpointer.
    private let lane: Checkpointer.Lane
    private unowned(unsafe) let delegate: EngineDelegate

    /// Opens the partial file, cuts it back to the trusted count (R51) and
    /// prepares the easy handle. Throws the failure to report when it cannot.
    init(request: TransferRequest, serial: UInt64, live: LiveProgress,
         checkpointer: Checkpointer, delegate: EngineDelegate) throws(TransferFailure) {
        self.request = request
        self.serial = serial
        self.live = live
        lane = checkpointer.lane()
        sync = SyncProgress(committed: request.stored.offset, wake: checkpointer.wake)
        self.delegate = delegate
        let fd = open(request.partialPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let err = errno
            throw TransferFailure.writeError(errno: err, message: String(cString: strerror(err)))
        }
        if ftruncate(fd, off_t(request.stored.offset)) != 0 {
            let err = errno
            close(fd)
            throw TransferFailure.writeError(errno: err, message: String(cString: strerror(err)))
        }
        guard let handle = curl_easy_init() else {
            close(fd)
            throw TransferFailure.other(code: -1, message: "curl could not create a transfer")
        }
        self.fd = fd
        self.handle = handle
        writeOffset = request.stored.offset
        lastCheckpointBytes = request.stored.offset
        lastCheckpointTime = MonotonicClock.now()
        live.written.store(writeOffset, ordering: .releasing)
        live.resetSpeed()
    }

    deinit {
        staging?.deallocate()
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Sets the options; false (with the failure set) when curl refused one.
    func configure() -> TransferFailure? {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var rc = CURLE_OK
        func set(_ code: CURLcode) { if rc == CURLE_OK { rc = code } }
        set(ccurl_easy_setopt_string(handle, CURLOPT_URL, request.url))
        set(ccurl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, me))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        set(ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)))
        set(ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(ccurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, Curl.allowedProtocols))
        set(ccurl_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, Curl.allowedProtocols))
        set(ccurl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1))
        set(ccurl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 10))
        set(ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 30))
        // R53: a transfer slower than 1 KiB/s for 30 s is stalled.
        set(ccurl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1024))
        set(ccurl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 30))
        // Big reads: fewer trips through the multi loop per GiB.
        set(ccurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, EasyTransfer.readBufferSize))
        set(ccurl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        set(ccurl_easy_setopt_string(handle, CURLOPT_USERAGENT, "downloadfs/0.1"))
        set(ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me))
        set(ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            Unmanaged<EasyTransfer>.fromOpaque(user!).takeUnretainedValue().receive(data!, size * count)
        })
        set(ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me))
        set(ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let n = size * count
            let line = UnsafeRawBufferPointer(start: data, count: n)
            Unmanaged<EasyTransfer>.fromOpaque(user!).takeUnretainedValue().header(line)
            return n
        })
        var lines = request.headers
        if isFTP {
            // MDTM: the modification time is FTP's validator (R52) and the
            // finished file's mtime (R40).
            set(ccurl_easy_setopt_long(handle, CURLOPT_FILETIME, 1))
            if request.stored.offset > 0 {
                set(ccurl_easy_setopt_off(handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(request.stored.offset)))
            }
        } else {
            lines += ResumeDecision.requestHeaders(for: request.stored)
        }
        // curl_slist_append walks the whole list per call: appended at a kept
        // tail instead, so 200,000 `header=` lines cost linear time.
        var tail: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let node = curl_slist_append(nil, line) else { continue }
            if let tail { tail.pointee.next = node } else { headerList = node }
            tail = node
        }
        if let headerList { set(ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)) }
        return rc == CURLE_OK ? nil : .badURL(Curl.describe(rc))
    }

    private var isFTP: Bool { TransferProtocol(url: request.url) == .ftp }

    /// What curl wrote in the error buffer, "" when nothing.
    private var errorText: String {
        String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sets the speed limit (0: none), enforced by `RateLimiter` in the write
    /// callback. curl's own limiter is not used: it reads up to 100 buffers per
    /// `perform` while the socket has data, overshooting low limits by far.
    /// Limited transfers read in chunks of about 1/8 s of their limit.
    func setSpeedLimit(_ bytesPerSecond: Int64) {
        limiter.setLimit(max(0, bytesPerSecond), now: MonotonicClock.now())
        // curl refuses a new size once the transfer has its buffer (after the
        // first perform), so this only shapes a limit set before the start.
        let buffer = bytesPerSecond > 0 ? min(512 * 1024, max(4096, Int(bytesPerSecond / 8))) : EasyTransfer.readBufferSize
        _ = ccurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, buffer)
    }

    /// True while the write callback has paused the transfer: to keep its
    /// limit, or until the disk catches up (`syncLagging`).
    private(set) var held = false
    private var limiter = RateLimiter()

    /// Bytes received but not yet covered by a reported checkpoint have
    /// reached `lagBytes` while a checkpoint is under way: the network is
    /// outrunning `fdatasync`. Reading then waits for the disk, so a crash
    /// never costs more than 8 MiB fetched again (R51, SPEC §9).
    private var syncLagging: Bool {
        sync.inFlight && writeOffset + Int64(staged) - sync.committed >= EasyTransfer.lagBytes
    }

    /// Waits (blocking the engine thread, which then reads no socket) for
    /// the disk to catch up; true once it has. Gives up after 50 ms, and the
    /// transfer is then paused instead (`held`), so a slow disk never stalls
    /// the other transfers or the engine's commands for long. Waiting here
    /// rather than pausing at once spares curl copying what it had read.
    private func waitForDisk() -> Bool {
        let deadline = MonotonicClock.now() + 0.05
        while syncLagging {
            let left = deadline - MonotonicClock.now()
            guard left > 0, sync.waitForEnd(timeout: left) else { return !syncLagging }
        }
        return true
    }

    /// Resumes a held transfer once it has credit and the disk caught up.
    func resumeIfAllowed(now: Double) {
        guard held, limiter.allows(now: now), !syncLagging else { return }
        held = false
        // May call the write callback at once with the data curl held back.
        curl_easy_pause(handle, CURLPAUSE_CONT)
    }

    // MARK: - curl callbacks (engine thread)

    private func header(_ raw: UnsafeRawBufferPointer) {
        switch HeaderLine.parse(raw) {
        case .statusLine:
            headers = [:]
            responses += 1
        case .field(let name, let value):
            headers[name] = value
        case nil:
            break
        }
    }

    private func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if decision == nil { decide() }
        switch decision {
        case .some(.append), .some(.startOver):
            if syncLagging && !waitForDisk() {
                held = true
                sync.hold()
                return Int(bitPattern: UInt(CURL_WRITEFUNC_PAUSE))
            }
            if limiter.limit > 0 {
                let now = MonotonicClock.now()
                guard limiter.allows(now: now) else {
                    held = true
                    return Int(bitPattern: UInt(CURL_WRITEFUNC_PAUSE))
                }
                limiter.consume(Int64(count), now: now)
            }
            return stage(data, count)
        default: return 0  // an error page or nothing left to fetch: never written (R43)
        }
    }

    /// Copies a piece of the body into the staging buffer; the buffer is
    /// written out whenever the file offset reaches a multiple of its size.
    private func stage(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard writeErrno == nil else { return 0 }
        let capacity = EasyTransfer.stagingCapacity
        let buffer = staging ?? UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 4096)
        staging = buffer
        var done = 0
        while done < count {
            let end = writeOffset + Int64(staged)
            let room = capacity - Int(end % Int64(capacity))
            let n = min(room, count - done)
            (buffer + staged).copyMemory(from: data + done, byteCount: n)
            staged += n
            done += n
            if n == room && !flush() { return 0 }
        }
        return count
    }

    /// Writes the staged bytes to the partial file; false (with `writeErrno`
    /// set) when the write failed. Only written bytes count as progress.
    @discardableResult
    func flush() -> Bool {
        guard writeErrno == nil else { return false }
        guard staged > 0, let staging else { return true }
        let count = staged
        staged = 0
        guard pwriteAll(UnsafeRawPointer(staging), count) else { return false }
        advance(by: count)
        return true
    }

    private func pwriteAll(_ data: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = pwrite(fd, data + done, count - done, off_t(writeOffset + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                writeErrno = errno
                return false
            }
            done += n
        }
        return true
    }

    private func advance(by count: Int) {
        receivedData = true
        writeOffset += Int64(count)
        live.written.store(writeOffset, ordering: .releasing)
        let unsynced = writeOffset - lastCheckpointBytes
        if unsynced >= EasyTransfer.checkpointBytes
            || (unsynced >= EasyTransfer.eagerCheckpointBytes && !sync.inFlight) {
            checkpoint()
        }
    }

    /// Decides what to do with the response (R52), once, at the first body
    /// byte or at the end of a body-less response.
    func decide() {
        guard decision == nil else { return }
        var effective: UnsafeMutablePointer<CChar>?
        _ = ccurl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        let effectiveURL = effective.map { String(cString: $0) } ?? request.url
        var code = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        var head: ResponseHead
        let offset = request.stored.offset
        var verdict: ResumeDecision
        if isFTP {
            var remaining: curl_off_t = -1
            _ = ccurl_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &remaining)
            var filetime: curl_off_t = -1
            _ = ccurl_easy_getinfo_off(handle, CURLINFO_FILETIME_T, &filetime)
            let modified = filetime >= 0 ? HeaderValue.httpDate(epochSeconds: Int64(filetime)) : nil
            let total: Int64? = remaining >= 0 ? offset + Int64(remaining) : nil
            // REST behaves like a 206 from `offset`; its body never starts
            // at zero, so a start-over asks again (`restartReason`).
            head = ResponseHead(status: offset > 0 ? 206 : 200,
                                contentRange: offset > 0 ? ContentRange(start: offset, end: total.map { $0 - 1 }, total: total) : nil,
                                contentLength: remaining >= 0 ? Int64(remaining) : nil, etag: nil, lastModified: modified)
            verdict = ResumeDecision.decideFTP(stored: request.stored, remaining: remaining >= 0 ? Int64(remaining) : nil,
                                               modified: modified)
        } else {
            head = ResponseHead(status: code,
                                contentRange: headers["content-range"].flatMap(ContentRange.parse),
                                contentLength: headers["content-length"].flatMap { Int64($0) },
                                etag: headers["etag"], lastModified: headers["last-modified"])
            verdict = ResumeDecision.decide(stored: request.stored, response: head)
        }
        if case .fail(.http(let status, _)) = verdict, let retryAfter = headers["retry-after"] {
            verdict = .fail(.http(status: status, retryAfter: HeaderValue.retryAfter(retryAfter, now: Date())))
        }
        decision = verdict
        let summary = ResponseSummary(head: head, contentType: headers["content-type"],
                                      contentDisposition: headers["content-disposition"],
                                      retryAfter: headers["retry-after"], effectiveURL: effectiveURL)
        self.summary = summary
        switch verdict {
        case .fail(let failure):
            abortFailure = failure
            return
        case .startOver(_, let reason) where !ResumeDecision.bodyStartsAtZero(head):
            restartReason = reason
            return
        case .startOver:
            if ftruncate(fd, 0) != 0 { writeErrno = errno }
            writeOffset = 0
            lastCheckpointBytes = 0
            sync.reset()
            live.written.store(0, ordering: .releasing)
        case .append, .alreadyComplete:
            break
        }
        delegate.transferStarted(request.id, serial: serial, response: summary, decision: verdict)
    }

    // MARK: - checkpoints and the end

    /// Flushes what was written and reports the count once it is on disk:
    /// every byte written before the sync starts (`live.written`, at least
    /// the count now), not only those written before this call. Staged bytes
    /// are not included: callers write them out first.
    private func checkpoint() {
        let bytes = writeOffset
        lastCheckpointBytes = bytes
        lastCheckpointTime = MonotonicClock.now()
        let copy = dup(fd)
        guard copy >= 0 else { return }
        let (id, serial, delegate, live) = (request.id, serial, delegate, live)
        // `live` belongs to the task; should a later attempt have reset it,
        // this report carries an old serial and is ignored.
        let sync = self.sync
        sync.started()
        lane.checkpoint(copy, count: { max(bytes, live.bytes) }) { result in
            switch result {
            case .success(let synced):
                // After a failed sync nothing is trusted, even a later sync
                // that succeeds: the kernel may have dropped the pages that
                // failed to reach the disk (R51).
                if sync.failure == nil { delegate.transferCheckpointed(id, serial: serial, ranges: .prefix(synced)) }
                sync.ended(committed: synced)
            case .failure(let error):
                sync.ended(failure: error.errno)
            }
        }
    }

    /// The engine's periodic work: writes out what is staged, samples the
    /// speed and checkpoints once 2 s have passed (R51). False when the write
    /// failed (`writeErrno` is set; the attempt must end).
    func tick(now: Double) -> Bool {
        // A failed checkpoint is a write error (R51, R54): the attempt ends.
        if writeErrno == nil, let failure = sync.failure { writeErrno = failure }
        let written = flush()
        live.sample(at: now)
        if written && writeOffset != lastCheckpointBytes && now - lastCheckpointTime >= EasyTransfer.checkpointSeconds {
            checkpoint()
        }
        return written
    }

    /// What the attempt came to, given curl's result code.
    func outcome(for code: CURLcode) -> TransferOutcome {
        if decision == nil && code == CURLE_OK { decide() }
        if let restartReason {
            return .restart(reason: restartReason)
        }
        if let abortFailure {
            return .failed(abortFailure, ranges: .prefix(writeOffset), receivedData: receivedData)
        }
        if case .some(.alreadyComplete(let total)) = decision {
            return .completed(bytes: total, total: total)
        }
        if let writeErrno {
            return .failed(.writeError(errno: writeErrno, message: String(cString: strerror(writeErrno))),
                           ranges: .prefix(lastCheckpointBytes), receivedData: receivedData)
        }
        if code == CURLE_BAD_DOWNLOAD_RESUME {
            // FTP: the file is now smaller than what we have of it.
            return .restart(reason: "file changed on the FTP server (now smaller than the \(request.stored.offset) bytes already here)")
        }
        guard code == CURLE_OK else {
            var redirects = 0
            _ = ccurl_easy_getinfo_long(handle, CURLINFO_REDIRECT_COUNT, &redirects)
            return .failed(CurlFailure.from(code, receivedData: receivedData, redirects: redirects,
                                            detail: errorText, ftp: isFTP),
                           ranges: .prefix(writeOffset), receivedData: receivedData)
        }
        var total: Int64?
        switch decision {
        case .some(.append(let t)), .some(.startOver(let t, _)): total = t
        default: total = nil
        }
        if let total, total != writeOffset {
            return .failed(.partialBody, ranges: .prefix(writeOffset), receivedData: receivedData)
        }
        return .completed(bytes: writeOffset, total: total ?? writeOffset)
    }

    /// Hands the descriptor to the checkpointer: it is synced and closed, and
    /// only then is the outcome reported (after any earlier checkpoint).
    func finish(_ outcome: TransferOutcome) {
        let (id, serial, delegate, sync) = (request.id, serial, delegate, sync)
        lane.sync(fd) { err in
            var outcome = outcome
            // Any failed sync of this attempt, this one or an earlier
            // checkpoint's, leaves only the last successful checkpoint
            // trusted (R51): never the count that was asked for.
            if let failed = err != 0 ? err : sync.failure {
                outcome = .failed(.writeError(errno: failed, message: String(cString: strerror(failed))),
                                  ranges: .prefix(sync.committed), receivedData: false)
            }
            delegate.transferFinished(id, serial: serial, outcome: outcome)
        }
    }
}

/// The checkpoints of one attempt, shared between the engine thread (which
/// asks for them and may wait for one to end) and its checkpointer lane
/// (which reports them). One condition guards it; it is touched once per
/// received piece, never contended for long.
final class SyncProgress: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = 0
    private var reported: Int64
    private var failedErrno: Int32?
    /// The engine paused a transfer until a checkpoint ends: wake it then.
    private var holding = false
    private let wake: @Sendable () -> Void

    init(committed: Int64, wake: @escaping @Sendable () -> Void) {
        reported = committed
        self.wake = wake
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// A checkpoint is under way.
    var inFlight: Bool { locked { running != 0 } }
    /// The count of the last checkpoint reported (the trusted count at start).
    var committed: Int64 { locked { reported } }

    func started() { locked { running += 1 } }

    /// The errno of the first sync of this attempt that failed, if any.
    var failure: Int32? { locked { failedErrno } }

    /// A checkpoint's sync failed: nothing after the last count reported is
    /// trusted, and the engine ends the attempt at its next tick.
    func ended(failure: Int32) {
        locked { if failedErrno == nil { failedErrno = failure } }
        ended(committed: nil)
    }

    /// A checkpoint ended: `committed` is the count it reported, nil if the
    /// sync failed. A count after a failure is not taken.
    func ended(committed count: Int64?) {
        let wakeEngine = locked { () -> Bool in
            if let count, failedErrno == nil { reported = count }
            running -= 1
            condition.broadcast()
            defer { holding = false }
            return holding
        }
        if wakeEngine { wake() }
    }

    /// The engine holds the transfer until a checkpoint ends; `ended` wakes it.
    func hold() { locked { holding = true } }

    /// Blocks until no checkpoint is under way (true) or `timeout` seconds pass (false).
    func waitForEnd(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return locked {
            while running != 0 {
                if !condition.wait(until: deadline) { return running == 0 }
            }
            return true
        }
    }

    /// The attempt starts over from byte 0 (before any checkpoint of it).
    func reset() { locked { reported = 0 } }
}
