import CCurl
import DownloadFSCore
import Foundation
import Glibc
import Synchronization

/// One connection of a task's download: a curl easy handle fetching one
/// requested range into its place in the task's data file with `pwrite`,
/// and the parsing of its response head. Its `TaskDownload` owns the file,
/// decides what each answer means for the task and what to fetch next.
///
/// Confined to the engine thread, like the `EasyHandle` of
/// swift-corelibs-foundation: curl calls back into it only from
/// `curl_multi_perform`, which only the engine thread runs.
final class EasyTransfer {
    /// curl's receive buffer (CURLOPT_BUFFERSIZE, at most 10 MiB). Big reads
    /// drain the socket in one call: on loopback 1-4 MiB cut the time per GiB
    /// by a quarter to a third against 512 KiB. Only the part a read fills is
    /// touched. What curl has read and not yet handed over is lost in a
    /// crash, so it counts against the 8 MiB bound (`TaskDownload.lagBytes`).
    static let readBufferSize = 2 << 20

    /// The connection's number in its task's `SegmentedAttempt`.
    let id: UInt64
    let url: String
    /// Which of its task's URLs `url` is (R19: 0 the first, then the mirrors).
    let mirror: Int
    /// What this connection asked for.
    let range: RequestedRange
    /// A kept one (`TransferPool`) unless it refused an option (`configure`).
    private(set) var handle: UnsafeMutableRawPointer
    /// The handle came from the pool, not `curl_easy_init`.
    private let handleWasKept: Bool
    /// In the engine's multi handle (`attach`, `detach`).
    private var attached = false
    /// curl ended the transfer without an error (`end(for:)`): only then is
    /// the handle kept for another. curl 7.88 leaves some handles that
    /// failed (a redirect to a refused scheme, a host that did not
    /// resolve) refusing `CURLOPT_BUFFERSIZE` after `curl_easy_reset`, and
    /// every transfer that took one failed.
    private var curlSucceeded = false
    unowned(unsafe) let owner: TaskDownload
    private let pool: TransferPool
    /// The handle was given cookies: it is not kept for another transfer.
    private var usedCookies = false
    private let fd: Int32
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// curl's own sentence for a failure (CURLOPT_ERRORBUFFER), often more
    /// precise than its code's text.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// The task's `all-proxy` (nil: the environment's): names the proxy in a failure to reach it.
    private var proxyOption: String?
    /// The next byte of the file this connection writes.
    private(set) var position: Int64
    /// Where this connection stops (exclusive): the request's end, moved
    /// down when another connection takes over the rest (a steal, R18).
    private var end: Int64?

    // The response being received (reset at each status line: redirects,
    // 100-continue).
    private var headers: [String: String] = [:]
    private(set) var decision: ResumeDecision?
    private var abortFailure: TransferFailure?
    /// A start-over whose body does not begin at byte 0: stop and ask again from 0.
    private var restartReason: String?
    private(set) var writeErrno: Int32?
    private(set) var receivedData = false
    /// The owner dropped this connection: nothing more is written.
    private(set) var dropped = false
    /// The connection wrote up to `end` and stopped reading.
    private var reachedEnd = false

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
    private(set) var staged = 0

    /// True while the write callback has paused the transfer: to keep the
    /// task's limit, or until the disk catches up.
    private(set) var held = false

    /// When the connection was opened, and the body bytes it has written
    /// since: its speed, for the endgame (`TaskDownload.endgame`).
    private let openedAt = MonotonicClock.now()
    private(set) var fetched: Int64 = 0
    /// Body bytes received past the point where it was told to stop (a
    /// steal or a handover took them): thrown away.
    private(set) var discarded: Int64 = 0

    init(id: UInt64, url: String, mirror: Int, range: RequestedRange, fd: Int32, owner: TaskDownload,
         pool: TransferPool) throws(TransferFailure) {
        guard let (handle, kept) = pool.handle() else {
            throw TransferFailure.other(code: -1, message: "curl could not create a transfer")
        }
        self.pool = pool
        handleWasKept = kept
        self.id = id
        self.url = url
        self.mirror = mirror
        self.range = range
        self.fd = fd
        self.owner = owner
        self.handle = handle
        position = range.start
        end = range.end
    }

    deinit {
        if let staging { pool.giveBack(staging) }
        // One still in a multi handle is cleaned up (which takes it out), never kept.
        if attached {
            curl_easy_cleanup(handle)
        } else {
            // What curl received, heads and bodies never written included:
            // how much of its buffer the handle has touched.
            var received: curl_off_t = 0
            _ = ccurl_easy_getinfo_off(handle, CURLINFO_SIZE_DOWNLOAD_T, &received)
            pool.giveBack(handle, received: Int64(received), reusable: curlSucceeded && !usedCookies)
        }
        errorBuffer.deallocate()
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Sets the options: `options` what every connection of the task sends
    /// (the user's header lines, Referer, User-Agent, credentials, proxy,
    /// cookies, R10), `known` what the task knows of the file (for If-Range),
    /// `trust` the CAs to trust, `bufferSize` curl's read size. Returns the
    /// failure when curl refused one.
    func configure(_ options: ConnectionOptions, known: StoredProgress, trust: TLSTrust,
                   bufferSize: Int) -> TransferFailure? {
        let (used, rc) = pool.configure(handle, kept: handleWasKept) { handle in
            setOptions(on: handle, options, known: known, trust: trust, bufferSize: bufferSize)
        }
        handle = used
        return rc == CURLE_OK ? nil : .badURL(Curl.describe(rc))
    }

    /// Every option on `handle`; the first code curl refused one with.
    /// Run again on a new handle when a kept one refused (`TransferPool.configure`).
    private func setOptions(on handle: UnsafeMutableRawPointer, _ options: ConnectionOptions, known: StoredProgress,
                            trust: TLSTrust, bufferSize: Int) -> CURLcode {
        usedCookies = false
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        proxyOption = options.proxy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var rc = CURLE_OK
        func set(_ code: CURLcode) { if rc == CURLE_OK { rc = code } }
        set(ccurl_easy_setopt_string(handle, CURLOPT_URL, url))
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
        set(ccurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, bufferSize))
        set(ccurl_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        // A proxy's answer to CONNECT is not the server's head (`header`).
        set(ccurl_easy_setopt_long(handle, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if let file = trust.caFile { set(ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, file)) }
        if let directory = trust.caDirectory { set(ccurl_easy_setopt_string(handle, CURLOPT_CAPATH, directory)) }
        set(ccurl_easy_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent ?? Curl.userAgent))
        if let referer = options.referer(for: url) { set(ccurl_easy_setopt_string(handle, CURLOPT_REFERER, referer)) }
        // Basic auth (curl's default) over HTTP, the login over FTP. curl
        // copies the strings; they never reach a log. Sent only to the host
        // first asked: UNRESTRICTED_AUTH off (curl's default, said here so
        // no one turns it on), so a redirect to another host gets none.
        let credentials = options.credentials(for: url)
        if let user = credentials.user { set(ccurl_easy_setopt_string(handle, CURLOPT_USERNAME, user)) }
        if let password = credentials.password { set(ccurl_easy_setopt_string(handle, CURLOPT_PASSWORD, password)) }
        set(ccurl_easy_setopt_long(handle, CURLOPT_UNRESTRICTED_AUTH, 0))
        if let proxy = options.proxy {
            // The task's proxy replaces the environment's, no_proxy included:
            // "" turns curl's proxy off, and an empty NOPROXY keeps curl from
            // reading no_proxy.
            set(ccurl_easy_setopt_string(handle, CURLOPT_PROXY, proxy))
            set(ccurl_easy_setopt_string(handle, CURLOPT_NOPROXY, ""))
        }
        // The cookies that match this URL (decided in `CookieJar`), as
        // cookies.txt lines for curl's cookie engine rather than a Cookie
        // header: on a redirect curl sends only those still matching, none
        // to another host (CURLOPT_COOKIE would go everywhere).
        for line in options.cookieLines(for: url, now: Int64(Date().timeIntervalSince1970)) {
            usedCookies = true
            set(ccurl_easy_setopt_string(handle, CURLOPT_COOKIELIST, line))
        }
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
        var lines = options.headers
        if isFTP {
            // MDTM: the modification time is FTP's validator (R52) and the
            // finished file's mtime (R40). FTP fetches one range to the end.
            set(ccurl_easy_setopt_long(handle, CURLOPT_FILETIME, 1))
            if range.start > 0 {
                set(ccurl_easy_setopt_off(handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(range.start)))
            }
        } else {
            lines += ResumeDecision.requestHeaders(for: known, range: range)
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
        return rc
    }

    private var isFTP: Bool { TransferProtocol(url: url) == .ftp }

    /// What curl wrote in the error buffer, "" when nothing.
    private var errorText: String {
        String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Adds the handle to `multi`, which then runs it.
    func attach(to multi: UnsafeMutableRawPointer) {
        curl_multi_add_handle(multi, handle)
        attached = true
    }

    /// Takes the handle out of `multi`: it runs no more.
    func detach(from multi: UnsafeMutableRawPointer) {
        curl_multi_remove_handle(multi, handle)
        attached = false
    }

    /// Stops at `end` instead (a steal took the bytes from there on, R18):
    /// staged bytes beyond it are never written.
    func stop(at end: Int64) {
        self.end = min(self.end ?? .max, end)
    }

    /// The owner dropped this connection: what it has staged is thrown
    /// away (other connections hold those bytes, or a fall back no longer
    /// trusts them) and nothing more is written.
    func drop() {
        dropped = true
        staged = 0
    }

    /// Bytes per second since the connection opened; nil before a second
    /// has passed, too soon to judge.
    func speed(now: Double) -> Double? {
        let seconds = now - openedAt
        return seconds >= 1 ? Double(fetched) / seconds : nil
    }

    /// Resumes a held transfer once its task allows it.
    func resumeIfAllowed(now: Double) {
        guard held, owner.admits(now: now) else { return }
        held = false
        // May call the write callback at once with the data curl held back.
        curl_easy_pause(handle, CURLPAUSE_CONT)
    }

    // MARK: - curl callbacks (engine thread)

    private func header(_ raw: UnsafeRawBufferPointer) {
        switch HeaderLine.parse(raw) {
        case .statusLine:
            headers = [:]
        case .field(let name, let value):
            headers[name] = value
        case nil:
            // The blank line that ends a final answer's head: decided now,
            // not at the first body byte, so a known total is shown (and
            // the file sized, R20, R23) even while the body stalls.
            if !isFTP, raw.count <= 2, isFinalAnswer { decide() }
        }
    }

    /// The head just received is the one the body follows: not 1xx, and
    /// not a redirect curl is about to follow.
    private var isFinalAnswer: Bool {
        var code = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        guard code >= 200 else { return false }
        return !((300..<400).contains(code) && headers["location"] != nil)
    }

    private func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard !dropped, !reachedEnd else { return 0 }
        if decision == nil { decide() }
        guard !dropped else { return 0 }
        switch decision {
        case .some(.append), .some(.startOver):
            guard owner.admits(count) else {
                held = true
                return Int(bitPattern: UInt(CURL_WRITEFUNC_PAUSE))
            }
            return stage(data, count)
        default: return 0  // an error page or nothing left to fetch: never written (R43)
        }
    }

    /// Copies a piece of the body into the staging buffer; the buffer is
    /// written out whenever the file offset reaches a multiple of its size.
    /// At `end` the connection stops reading (returning short ends curl's
    /// transfer; `reachedEnd` makes that a success).
    private func stage(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard writeErrno == nil else { return 0 }
        let capacity = EasyTransfer.stagingCapacity
        let buffer = staging ?? pool.buffer()
        staging = buffer
        var done = 0
        while done < count {
            let at = position + Int64(staged)
            if let end, at >= end { break }
            let room = capacity - Int(at % Int64(capacity))
            let n = min(room, count - done, Int(min(Int64(Int.max), (end ?? .max) - at)))
            (buffer + staged).copyMemory(from: data + done, byteCount: n)
            staged += n
            done += n
            if n == room && !flush() { return 0 }
        }
        discarded += Int64(count - done)
        if let end, position + Int64(staged) >= end {
            // Reached: anything more the server sends ends the transfer.
            reachedEnd = true
            guard flush() else { return 0 }
        } else if staged > 0, owner.live.readersWaiting.load(ordering: .relaxed) > 0 {
            // A reader may wait for these bytes (R23): written now, not a block later.
            guard flush() else { return 0 }
        }
        return done < count ? 0 : count
    }

    /// Writes the staged bytes into place; false (with `writeErrno` set) when
    /// the write failed. Only written bytes count as progress, and never
    /// beyond `end`. Dropped connections write nothing more.
    @discardableResult
    func flush() -> Bool {
        guard writeErrno == nil else { return false }
        guard staged > 0, let staging, !dropped else { staged = 0; return true }
        let count = Int(min(Int64(staged), (end ?? .max) - position))
        staged = 0
        guard count > 0 else { return true }
        guard pwriteAll(UnsafeRawPointer(staging), count) else { return false }
        let from = position
        position += Int64(count)
        fetched += Int64(count)
        receivedData = true
        owner.wrote(self, from..<position)
        return true
    }

    private func pwriteAll(_ data: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = pwrite(fd, data + done, count - done, off_t(position + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                writeErrno = errno
                return false
            }
            done += n
        }
        return true
    }

    /// Decides what to do with the response (R52, R18), once, at the first
    /// body byte or at the end of a body-less response; the owner judges it
    /// for the task and says where to write.
    func decide() {
        guard decision == nil, !dropped else { return }
        var effective: UnsafeMutablePointer<CChar>?
        _ = ccurl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        let effectiveURL = effective.map { String(cString: $0) } ?? url
        var code = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        var head: ResponseHead
        let offset = range.start
        var verdict: ResumeDecision
        let known = owner.validators(for: self)
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
            var stored = known
            stored.offset = offset
            verdict = ResumeDecision.decideFTP(stored: stored, remaining: remaining >= 0 ? Int64(remaining) : nil,
                                               modified: modified)
        } else {
            head = ResponseHead(status: code,
                                contentRange: headers["content-range"].flatMap(ContentRange.parse),
                                contentLength: headers["content-length"].flatMap { Int64($0) },
                                etag: headers["etag"], lastModified: headers["last-modified"])
            verdict = ResumeDecision.decide(requested: range, stored: known, response: head)
        }
        if case .fail(.http(let status, _)) = verdict, let retryAfter = headers["retry-after"] {
            verdict = .fail(.http(status: status, retryAfter: HeaderValue.retryAfter(retryAfter, now: Date())))
        }
        decision = verdict
        let summary = ResponseSummary(head: head, contentType: headers["content-type"],
                                      contentDisposition: headers["content-disposition"],
                                      retryAfter: headers["retry-after"], effectiveURL: effectiveURL)
        switch verdict {
        case .fail(let failure):
            abortFailure = failure
        case .alreadyComplete:
            break
        case .startOver(_, let reason) where !ResumeDecision.bodyStartsAtZero(head) && range.isWholeFile:
            // A plain GET whose answer is unusable: ask again later (R53).
            restartReason = reason
        case .startOver, .append:
            switch owner.answered(self, head: head, summary: summary, decision: verdict) {
            case .write:
                // A 206 ends where its Content-Range says, whatever its body
                // carries: more is not the file's (cut, R52), less is a body
                // that ended early (`partialBody`, a back-off, R53). An open
                // request (`bytes=N-`) has no end of its own until then.
                if head.status == 206, let last = head.contentRange?.end {
                    end = min(end ?? .max, last + 1)
                }
            case .writeWhole:
                position = 0
                end = nil
            case .drop:
                drop()
            }
        }
    }

    // MARK: - the end

    /// How a connection ended.
    enum End {
        /// Its range is fetched (or it was stopped at its end).
        case done
        /// A 416 said every byte is already here.
        case alreadyComplete(total: Int64)
        case failed(TransferFailure)
        /// A plain GET's answer could not be used: the task asks again from zero later (R52, R53).
        case restart(reason: String)
        /// The data file could not be written: the task's download ends (R54).
        case writeFailed(errno: Int32)
        /// The owner dropped it; it speaks for nothing any more.
        case dropped
    }

    /// What the connection came to, given curl's result code. Flushes first.
    func end(for code: CURLcode) -> End {
        curlSucceeded = code == CURLE_OK
        if decision == nil && code == CURLE_OK { decide() }
        if !dropped { flush() }
        if let writeErrno { return .writeFailed(errno: writeErrno) }
        if dropped { return .dropped }
        if let restartReason { return .restart(reason: restartReason) }
        if let abortFailure { return .failed(abortFailure) }
        if case .some(.alreadyComplete(let total)) = decision { return .alreadyComplete(total: total) }
        if reachedEnd { return .done }
        if code == CURLE_BAD_DOWNLOAD_RESUME {
            // FTP: the file is now smaller than what we have of it.
            return .restart(reason: "file changed on the FTP server (now smaller than the \(range.start) bytes already here)")
        }
        guard code == CURLE_OK else {
            var redirects = 0
            _ = ccurl_easy_getinfo_long(handle, CURLINFO_REDIRECT_COUNT, &redirects)
            return .failed(CurlFailure.from(code, receivedData: receivedData, redirects: redirects,
                                            detail: errorText, ftp: isFTP, url: url, proxy: proxyOption))
        }
        if let end, end != .max, position < end { return .failed(.partialBody) }
        return .done
    }
}
