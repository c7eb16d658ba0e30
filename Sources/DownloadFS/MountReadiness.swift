import Foundation
import Glibc
import Synchronization
import Threads

/// Decides, once, whether a fresh mount became ready (R1).
///
/// "Ready" means the kernel has finished the FUSE handshake (INIT) and the
/// daemon answers. `fuse_session_mount` returning is not that: INIT is read
/// and answered only once the session loop runs, and libfuse may still
/// refuse it then (an option such as `max_read` that the handshake cannot
/// honour) and end the loop. The proof used is a `stat` of the mountpoint
/// that reaches the mount: the kernel holds every request until INIT is
/// answered and fails them all if it was refused, so a `stat` that returns
/// a directory on another device than the mountpoint's parent means the
/// handshake is done and our `getattr` answered. The `stat` runs on a probe
/// thread of its own — never on a FUSE thread, which would wait on itself —
/// while the main thread serves.
///
/// Whichever comes first decides: the probe's `stat` (ready), the session
/// loop ending (failed: libfuse refused the handshake, or the daemon was
/// unmounted or signalled first), or the deadline (failed: the mount did
/// not answer; the daemon then signals itself to end the loop).
final class MountReadiness: Sendable {
    enum Outcome: Sendable, Equatable {
        case ready
        /// Why, when known here; nil when the loop ended first (libfuse's
        /// own log says why).
        case failed(String?)
    }

    private let outcome = Mutex<Outcome?>(nil)
    private let probeFinished = DispatchSemaphore(value: 0)

    /// Starts the probe. `onReady` runs once, on the probe thread, if the
    /// mount answers before anything else decides.
    func probe(_ mountpoint: String, deadline seconds: Int, onReady: @escaping @Sendable () -> Void) {
        let parent = (mountpoint as NSString).deletingLastPathComponent
        do {
            try OSThread.start("downloadfs-probe") { [self] in
                probeMount(mountpoint, below: parent, until: seconds, onReady: onReady)
            }
        } catch {
            probeFinished.signal()
            return fail(error.message)
        }
        // The stat may block for good on a mount that never answers, so the
        // deadline is kept apart from it.
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { [self] in
            fail("the mount did not answer within \(seconds) s")
        }
    }

    /// Decides "failed" unless something decided first, and then ends the
    /// session loop (the daemon signals itself, as `kill` would).
    private func fail(_ reason: String) {
        if decide(.failed(reason)) { kill(getpid(), SIGTERM) }
    }

    /// The probe thread: `stat`s the mountpoint until it is a directory on
    /// another device than its parent, or something else decided.
    private func probeMount(_ mountpoint: String, below parent: String, until seconds: Int,
                            onReady: @Sendable () -> Void) {
        defer { probeFinished.signal() }
        var below = stat()
        let parentDevice: dev_t? = stat(parent.isEmpty ? "/" : parent, &below) == 0 ? below.st_dev : nil
        let end = Date().addingTimeInterval(TimeInterval(seconds))
        while undecided && Date() < end {
            var st = stat()
            if stat(mountpoint, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_dev != parentDevice {
                if decide(.ready) { onReady() }
                return
            }
            usleep(20_000)
        }
    }

    /// The session loop has ended: the outcome, "failed" if nothing had
    /// decided yet.
    func loopEnded() -> Outcome {
        outcome.withLock { current in
            if current == nil { current = .failed(nil) }
            return current!
        }
    }

    /// Waits, within `seconds`, for the probe thread to finish, so an "ok"
    /// it is writing is not cut off by the process exiting. Once the mount
    /// is torn down a blocked `stat` returns.
    func waitForProbe(seconds: Int) {
        _ = probeFinished.wait(timeout: .now() + .seconds(seconds))
    }

    private var undecided: Bool { outcome.withLock { $0 == nil } }

    /// True if this call decided the outcome.
    private func decide(_ value: Outcome) -> Bool {
        outcome.withLock { current in
            guard current == nil else { return false }
            current = value
            return true
        }
    }
}
