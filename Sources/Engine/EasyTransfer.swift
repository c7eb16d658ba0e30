import CCurl
import DownloadFSCore
import Foundation
import Glibc

/// One attempt of one task: a curl easy handle, the partial file it writes
/// with `pwrite`, and the parsing of the response head.
///
/// Confined to the engine thread, like the `EasyHandle` of
/// swift-corelibs-foundation: curl calls back into it only from
/// `curl_multi_perform`, which only the engine thread runs.
final class EasyTransfer {
    static let checkpointBytes: Int64 = 8 << 20
    static let checkpointSeconds = 2.0

    let request: TransferRequest
    let serial: UInt64
    let live: LiveProgress
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
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

    private var lastCheckpointBytes: Int64
    private var lastCheckpointTime: Double
    private let checkpointer: Checkpointer
    private unowned(unsafe) let delegate: EngineDelegate

    /// Opens the partial file, cuts it back to the trusted count (R51) and
    /// prepares the easy handle. Throws the failure to report when it cannot.
    init(request: TransferRequest, serial: UInt64, live: LiveProgress,
         checkpointer: Checkpointer, delegate: EngineDelegate) throws(TransferFailure) {
        self.request = request
        self.serial = serial
        self.live = live
        self.checkpointer = checkpointer
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
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Sets the options; false (with the failure set) when curl refused one.
    func configure() -> TransferFailure? {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var rc = CURLE_OK
        func set(_ code: CURLcode) { if rc == CURLE_OK { rc = code } }
        set(ccurl_easy_setopt_string(handle, CURLOPT_URL, request.url))
        set(ccurl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, me))
        set(ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(ccurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, Curl.allowedProtocols))
        set(ccurl_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, Curl.allowedProtocols))
        set(ccurl_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1))
        set(ccurl_easy_setopt_long(handle, CURLOPT_MAXREDIRS, 10))
        set(ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 30))
        // R53: a transfer slower than 1 KiB/s for 30 s is stalled.
        set(ccurl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1024))
        set(ccurl_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 30))
        // Bigger reads mean fewer write callbacks and pwrite calls per GiB.
        set(ccurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 512 * 1024))
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
            if request.stored.offset > 0 {
                set(ccurl_easy_setopt_off(handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(request.stored.offset)))
            }
        } else {
            lines += ResumeDecision.requestHeaders(for: request.stored)
        }
        for line in lines { headerList = curl_slist_append(headerList, line) }
        if let headerList { set(ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)) }
        return rc == CURLE_OK ? nil : .badURL(Curl.describe(rc))
    }

    private var isFTP: Bool {
        let lower = request.url.lowercased()
        return lower.hasPrefix("ftp://") || lower.hasPrefix("ftps://")
    }

    /// Sets the speed limit (0: none), enforced by `RateLimiter` in the write
    /// callback. curl's own limiter is not used: it reads up to 100 buffers per
    /// `perform` while the socket has data, overshooting low limits by far.
    /// Limited transfers read in chunks of about 1/8 s of their limit.
    func setSpeedLimit(_ bytesPerSecond: Int64) {
        limiter.setLimit(max(0, bytesPerSecond), now: MonotonicClock.now())
        let buffer = bytesPerSecond > 0 ? min(512 * 1024, max(4096, Int(bytesPerSecond / 8))) : 512 * 1024
        _ = ccurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, buffer)
    }

    /// True while the write callback has paused the transfer to keep its limit.
    private(set) var pausedForLimit = false
    private var limiter = RateLimiter()

    /// Resumes a transfer paused by its limiter once it has credit again.
    func resumeIfAllowed(now: Double) {
        guard pausedForLimit, limiter.allows(now: now) else { return }
        pausedForLimit = false
        // May call the write callback at once with the data curl held back.
        curl_easy_pause(handle, CURLPAUSE_CONT)
    }

    // MARK: - curl callbacks (engine thread)

    private func header(_ raw: UnsafeRawBufferPointer) {
        // Trim CR/LF as bytes: in Swift "\r\n" is one Character.
        var end = raw.count
        while end > 0 && (raw[end - 1] == 0x0A || raw[end - 1] == 0x0D) { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]
            responses += 1
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = value
    }

    private func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if decision == nil { decide() }
        switch decision {
        case .some(.append), .some(.startOver):
            if limiter.limit > 0 {
                let now = MonotonicClock.now()
                guard limiter.allows(now: now) else {
                    pausedForLimit = true
                    return Int(bitPattern: UInt(CURL_WRITEFUNC_PAUSE))
                }
                limiter.consume(Int64(count), now: now)
            }
            return write(data, count)
        default: return 0  // an error page or nothing left to fetch: never written (R43)
        }
    }

    private func write(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        var done = 0
        while done < count {
            let n = pwrite(fd, data + done, count - done, off_t(writeOffset + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                writeErrno = errno
                return 0
            }
            done += n
        }
        receivedData = true
        writeOffset += Int64(count)
        live.written.store(writeOffset, ordering: .releasing)
        if writeOffset - lastCheckpointBytes >= EasyTransfer.checkpointBytes { checkpoint() }
        return count
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
        if isFTP {
            var remaining: curl_off_t = -1
            _ = ccurl_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &remaining)
            let total: Int64? = remaining >= 0 ? offset + Int64(remaining) : nil
            // FTP has no validators: REST/SIZE behave like a 206 from `offset`.
            head = ResponseHead(status: offset > 0 ? 206 : 200,
                                contentRange: offset > 0 ? ContentRange(start: offset, end: total.map { $0 - 1 }, total: total) : nil,
                                contentLength: remaining >= 0 ? Int64(remaining) : nil, etag: nil, lastModified: nil)
        } else {
            head = ResponseHead(status: code,
                                contentRange: headers["content-range"].flatMap(ContentRange.parse),
                                contentLength: headers["content-length"].flatMap { Int64($0) },
                                etag: headers["etag"], lastModified: headers["last-modified"])
        }
        var verdict = ResumeDecision.decide(stored: request.stored, response: head)
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
            live.written.store(0, ordering: .releasing)
        case .append, .alreadyComplete:
            break
        }
        delegate.transferStarted(request.id, serial: serial, response: summary, decision: verdict)
    }

    // MARK: - checkpoints and the end

    /// Flushes what was written and reports the count once it is on disk.
    func checkpoint() {
        let bytes = writeOffset
        lastCheckpointBytes = bytes
        lastCheckpointTime = MonotonicClock.now()
        let copy = dup(fd)
        guard copy >= 0 else { return }
        let (id, serial, delegate) = (request.id, serial, delegate)
        checkpointer.sync(copy) { err in
            if err == 0 { delegate.transferCheckpointed(id, serial: serial, bytes: bytes) }
        }
    }

    func checkpointIfDue(now: Double) {
        if writeOffset != lastCheckpointBytes && now - lastCheckpointTime >= EasyTransfer.checkpointSeconds {
            checkpoint()
        }
    }

    /// What the attempt came to, given curl's result code.
    func outcome(for code: CURLcode) -> TransferOutcome {
        if decision == nil && code == CURLE_OK { decide() }
        if let restartReason {
            return .restart(reason: restartReason)
        }
        if let abortFailure {
            return .failed(abortFailure, bytes: writeOffset, receivedData: receivedData)
        }
        if case .some(.alreadyComplete(let total)) = decision {
            return .completed(bytes: total, total: total)
        }
        if let writeErrno {
            return .failed(.writeError(errno: writeErrno, message: String(cString: strerror(writeErrno))),
                           bytes: lastCheckpointBytes, receivedData: receivedData)
        }
        guard code == CURLE_OK else {
            var redirects = 0
            _ = ccurl_easy_getinfo_long(handle, CURLINFO_REDIRECT_COUNT, &redirects)
            return .failed(CurlFailure.from(code, receivedData: receivedData, redirects: redirects),
                           bytes: writeOffset, receivedData: receivedData)
        }
        var total: Int64?
        switch decision {
        case .some(.append(let t)), .some(.startOver(let t, _)): total = t
        default: total = nil
        }
        if let total, total != writeOffset {
            return .failed(.partialBody, bytes: writeOffset, receivedData: receivedData)
        }
        return .completed(bytes: writeOffset, total: total ?? writeOffset)
    }

    /// Hands the descriptor to the checkpointer: it is synced and closed, and
    /// only then is the outcome reported (after any earlier checkpoint).
    func finish(_ outcome: TransferOutcome, then: (@Sendable () -> Void)? = nil) {
        let (id, serial, delegate) = (request.id, serial, delegate)
        let (fd, trusted) = (self.fd, lastCheckpointBytes)
        checkpointer.sync(fd) { err in
            var outcome = outcome
            if err != 0 {
                outcome = .failed(.writeError(errno: err, message: String(cString: strerror(err))),
                                  bytes: trusted, receivedData: false)
            }
            delegate.transferFinished(id, serial: serial, outcome: outcome)
            then?()
        }
    }
}
