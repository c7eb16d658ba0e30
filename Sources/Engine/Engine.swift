import CCurl
import DownloadFSCore
import Foundation
import Glibc
import Synchronization

/// The download engine: one thread owns the curl multi handle and every easy
/// handle (curl handles are not thread-safe), other threads talk to it by
/// queueing commands and waking it with `curl_multi_wakeup`.
///
/// Like aria2's DownloadEngine it only does I/O; who runs and what an outcome
/// means is decided by the daemon's controller and the pure core.
public final class Engine: @unchecked Sendable {
    enum Command {
        case start(TransferRequest, serial: UInt64, live: LiveProgress)
        case stop(Int64)
        case limit(Int64, Int64)
        case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    private let commands = Mutex<[Command]>([])
    private let checkpointer: Checkpointer
    private let delegate: EngineDelegate
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    // Engine thread only.
    private var transfers: [Int64: EasyTransfer] = [:]
    private var running = true
    private var lastSample = 0.0

    public init(delegate: EngineDelegate) {
        self.delegate = delegate
        let multi = curl_multi_init()!
        self.multi = multi
        let handle = MultiHandle(pointer: multi)
        checkpointer = Checkpointer(wake: { curl_multi_wakeup(handle.pointer) })
        // Reuse connections across tasks to the same host (many small files).
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
    }

    deinit { curl_multi_cleanup(multi) }

    public func run() {
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "downloadfs-engine"
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    // MARK: - commands (any thread)

    public func start(_ request: TransferRequest, serial: UInt64, live: LiveProgress) {
        send(.start(request, serial: serial, live: live))
    }

    /// Stops a transfer; its outcome is reported as `.stopped` after a flush.
    public func stop(_ id: Int64) { send(.stop(id)) }


    public func setSpeedLimit(_ id: Int64, bytesPerSecond: Int64) { send(.limit(id, bytesPerSecond)) }

    /// Stops every transfer (each reported as `.stopped`, flushed) and ends the thread.
    public func shutdown() {
        send(.shutdown)
        finished.wait()
        checkpointer.drain()
    }

    private func send(_ command: Command) {
        commands.withLock { $0.append(command) }
        curl_multi_wakeup(multi)
    }

    // MARK: - the loop (engine thread)

    private func loop() {
        while running {
            for command in commands.withLock({ queue -> [Command] in defer { queue.removeAll() }; return queue }) {
                handle(command)
            }
            guard running else { break }
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            collectFinished()
            let now = MonotonicClock.now()
            if now - lastSample >= 0.25 {
                lastSample = now
                for (id, transfer) in transfers where !transfer.tick(now: now) {
                    // The staged bytes could not be written: end the attempt.
                    transfers.removeValue(forKey: id)
                    curl_multi_remove_handle(multi, transfer.handle)
                    transfer.finish(transfer.outcome(for: CURLE_WRITE_ERROR))
                }
            }
            var held = false
            for transfer in transfers.values where transfer.held {
                transfer.resumeIfAllowed(now: now)
                held = held || transfer.held
            }
            var numfds: Int32 = 0
            // Held transfers (speed limit, disk behind) are woken by time, not by sockets.
            curl_multi_poll(multi, nil, 0, held ? 10 : 250, &numfds)
        }
        for id in Array(transfers.keys) { stopTransfer(id) }
    }

    private func handle(_ command: Command) {
        switch command {
        case .start(let request, let serial, let live):
            if transfers[request.id] != nil { stopTransfer(request.id) }
            do {
                let transfer = try EasyTransfer(request: request, serial: serial, live: live,
                                                checkpointer: checkpointer, delegate: delegate)
                if let failure = transfer.configure() {
                    transfer.finish(.failed(failure, ranges: .prefix(request.stored.offset), receivedData: false))
                    return
                }
                transfers[request.id] = transfer
                curl_multi_add_handle(multi, transfer.handle)
            } catch {
                delegate.transferFinished(request.id, serial: serial,
                                          outcome: .failed(error, ranges: .prefix(request.stored.offset), receivedData: false))
            }
        case .stop(let id):
            stopTransfer(id)
        case .limit(let id, let rate):
            transfers[id]?.setSpeedLimit(rate)
        case .shutdown:
            running = false
        }
    }

    private func stopTransfer(_ id: Int64) {
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        curl_multi_remove_handle(multi, transfer.handle)
        transfer.flush()
        transfer.finish(.stopped(ranges: .prefix(transfer.writeOffset)))
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var pointer: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            let transfer = Unmanaged<EasyTransfer>.fromOpaque(pointer).takeUnretainedValue()
            let code = ccurl_msg_result(message)
            curl_multi_remove_handle(multi, easy)
            transfers.removeValue(forKey: transfer.request.id)
            transfer.flush()
            transfer.live.sample(at: MonotonicClock.now())
            transfer.finish(transfer.outcome(for: code))
        }
    }
}

/// The multi handle, for `curl_multi_wakeup` (the one call that is safe from
/// any thread).
private struct MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
