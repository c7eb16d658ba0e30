import CCurl
import CLinux
import DownloadFSCore
import Foundation
import Glibc
import Threads

/// The download engine: one thread owns the curl multi handle and every easy
/// handle (curl handles are not thread-safe), other threads talk to it by
/// queueing commands and waking it with `curl_multi_wakeup`. Each task's
/// attempt is a `TaskDownload` with one or more connections (R18).
///
/// Like aria2's DownloadEngine it only does I/O; who runs and what an outcome
/// means is decided by the daemon's controller and the pure core.
public final class Engine: @unchecked Sendable {
    enum Command: Sendable {
        case start(TransferRequest, serial: UInt64, live: LiveProgress)
        case stop(Int64)
        case limit(Int64, Int64)
        case split(Int64, SplitPolicy)
        case read(Int64)
        case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    private let commands = Inbox<Command>()
    private let checkpointer: Checkpointer
    private let delegate: EngineDelegate
    private let finished = DispatchSemaphore(value: 0)

    // Engine thread only.
    /// Each task's running attempt, by task id.
    private var downloads: [Int64: TaskDownload] = [:]
    private let slots: HostSlots
    /// Readers' windows (R23) have slots of their own, as many per host:
    /// they never wait behind background segments, and a folder of files
    /// read at once (a thumbnailer) does not open connections without bound.
    private let readerSlots: HostSlots
    private var running = true
    private var lastSample = 0.0
    private let trust: TLSTrust
    /// Handles and staging buffers ended transfers left, for the next ones.
    private let pool = TransferPool()

    /// `maxConnectionsPerHost`: at most this many connections to one host,
    /// across all tasks (R18). `trust`: the CAs https and ftps trust (R55).
    public init(delegate: EngineDelegate, maxConnectionsPerHost: Int = 8, trust: TLSTrust = .system) {
        self.delegate = delegate
        self.trust = trust
        let multi = curl_multi_init()!
        self.multi = multi
        slots = HostSlots(limit: maxConnectionsPerHost)
        readerSlots = HostSlots(limit: maxConnectionsPerHost)
        let handle = MultiHandle(pointer: multi)
        checkpointer = Checkpointer(wake: { curl_multi_wakeup(handle.pointer) })
        // Reuse connections across tasks to the same host (many small files).
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
    }

    deinit { curl_multi_cleanup(multi) }

    /// Starts the engine thread, which takes the commands sent so far.
    public func run() throws(ThreadStartError) {
        try OSThread.start("downloadfs-engine", stackSize: 1 << 20) { [self] in
            loop()
            finished.signal()
        }
    }

    // MARK: - commands (any thread)

    /// Starts an attempt; the engine thread opens (creates) its data file.
    public func start(_ request: TransferRequest, serial: UInt64, live: LiveProgress) {
        send(.start(request, serial: serial, live: live))
    }

    /// Stops a task's transfers; the outcome is reported as `.stopped` after a flush.
    public func stop(_ id: Int64) { send(.stop(id)) }

    public func setSpeedLimit(_ id: Int64, bytesPerSecond: Int64) { send(.limit(id, bytesPerSecond)) }

    /// How many connections a running task may have (R18).
    public func setSplit(_ id: Int64, _ split: SplitPolicy) { send(.split(id, split)) }

    /// No task is left to download (the loop's word: its engine may still
    /// be ending the last transfers): finished files waiting for company in
    /// their flush group go now, and so does the next to come.
    public func noneDownloading() { checkpointer.noneDownloading() }

    /// Readers wait for bytes of a running task (R23): its attempt fetches them next.
    public func fetchReads(_ id: Int64) { send(.read(id)) }

    /// Stops every transfer (each reported as `.stopped`, flushed) and ends the thread.
    public func shutdown() {
        send(.shutdown)
        finished.wait()
        checkpointer.drain()
    }

    /// Hands `command` to the engine thread, in the order sent.
    private func send(_ command: Command) {
        if commands.put(command) { curl_multi_wakeup(multi) }
    }

    // MARK: - the loop (engine thread)

    private func loop() {
        while running {
            for command in commands.takeAll() {
                handle(command)
            }
            guard running else { break }
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            collectFinished()
            let now = MonotonicClock.now()
            let tick = now - lastSample >= 0.25
            if tick { lastSample = now }
            var held = false
            var over: [Int64] = []
            for (id, download) in downloads {
                if tick { download.tick(now: now) } else { download.settle() }
                held = download.resumeHeld(now: now) || held
                if download.finished { over.append(id) }
            }
            for id in over { downloads[id] = nil }
            delegate.passEnded()
            var numfds: Int32 = 0
            // Held transfers (speed limit, disk behind) are woken by time, not by sockets.
            curl_multi_poll(multi, nil, 0, held ? 10 : 250, &numfds)
        }
        for download in downloads.values { download.stop() }
        downloads = [:]
        delegate.passEnded()
    }

    private func handle(_ command: Command) {
        switch command {
        case .start(var request, let serial, let live):
            let replaced = downloads.removeValue(forKey: request.id)
            replaced?.stop()
            let file: DataFile
            do { file = try DataFile.open(for: request) } catch {
                delegate.transferFinished(request.id, serial: serial,
                                          outcome: .failed(error, ranges: request.ranges, receivedData: false))
                return
            }
            if let correction = file.correction {
                // The file lost bytes the task counted on: the task learns
                // its ranges before any answer is reported, and readers
                // must not be served from the file that was there (R23).
                request.ranges = correction.ranges
                live.restart()
                delegate.transferNoted(request.id, serial: serial, line: correction.line)
                delegate.transferCheckpointed(request.id, serial: serial, ranges: correction.ranges)
            }
            // The attempt it replaces wrote what it had staged just now.
            if replaced != nil { file.cutAgain() }
            let download = TaskDownload(request: request, file: file, serial: serial, live: live, multi: multi,
                                        slots: slots, readerSlots: readerSlots, trust: trust,
                                        checkpointer: checkpointer, pool: pool, delegate: delegate)
            downloads[request.id] = download
            download.start()
        case .stop(let id):
            downloads.removeValue(forKey: id)?.stop()
        case .limit(let id, let rate):
            downloads[id]?.setSpeedLimit(rate)
        case .split(let id, let split):
            downloads[id]?.setSplit(split)
        case .read(let id):
            downloads[id]?.fetchReads()
        case .shutdown:
            running = false
        }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var pointer: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            let transfer = Unmanaged<EasyTransfer>.fromOpaque(pointer).takeUnretainedValue()
            transfer.owner.connectionEnded(transfer, code: ccurl_msg_result(message))
        }
    }
}

/// The multi handle, for `curl_multi_wakeup` (the one call that is safe from
/// any thread).
private struct MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
