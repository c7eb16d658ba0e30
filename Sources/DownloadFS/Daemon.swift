import CLinux
import Catalog
import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Glibc
import Logging

/// One mounted downloadfs, from checks to clean exit (R1–R3, R50).
///
/// Order: preflight → state dir and lock → catalog → load and reconcile →
/// FUSE session → mount → readiness probe → engine → serve (the kernel's
/// handshake, then "ready") → checkpoint everything → unmount → exit. The
/// FUSE loop runs on the calling (main) thread; every other thread is
/// started with SIGINT/SIGTERM/SIGHUP blocked so libfuse's handlers run on
/// a FUSE thread and end the loop.
public enum Daemon {
    /// How long the kernel's handshake and a first `stat` may take.
    static let readyDeadline = 30

    /// Mounts and serves until unmounted. `ready` runs once, on a helper
    /// thread, when the kernel has finished the FUSE handshake and the mount
    /// answers (the background parent is told then, R1). Returns the exit
    /// code; a mount that never became ready throws with libfuse's reason.
    public static func run(_ configuration: DaemonConfiguration, ready: @escaping @Sendable () -> Void) throws(DaemonError) -> Int32 {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&blocked, sig) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        signal(SIGPIPE, SIG_IGN)
        clinux_tune_malloc()
        DescriptorLimit.raiseToHard()

        let (fuseOptions, allowNonEmpty) = MountPreflight.takeNonempty(configuration.fuseOptions)
        if let refusal = MountPreflight.refusedOption(fuseOptions) { throw DaemonError(refusal) }
        let mountpoint = try MountPreflight.check(mountpoint: configuration.mountpoint, allowNonEmpty: allowNonEmpty)
        // Held until the mount is ready or has failed: a second `mount` of
        // the same directory waits, then finds this one (R2).
        let claim = try MountpointClaim(mountpoint)
        try MountPreflight.checkNotMounted(mountpoint)
        try MountPreflight.checkStateDir(configuration.stateDir, mountpoint: mountpoint)
        let state = StateDirectory(MountPreflight.absolute(configuration.stateDir))
        try state.create()
        let logFile = configuration.logToFile ? DaemonLogFile(path: state.daemonLog) : nil
        let lock = try StateLock(path: state.lock, stateDir: state.root)
        try? "\(getpid())\n".write(toFile: state.pidFile, atomically: true, encoding: .utf8)

        var logger = Logger(label: "downloadfs") { _ in DaemonLogHandler(file: logFile) }
        logger.logLevel = ProcessInfo.processInfo.environment["DOWNLOADFS_DEBUG"] != nil ? .debug : .info
        let catalog: Catalog
        do { catalog = try Catalog(path: state.catalog) } catch { throw DaemonError(error.message) }
        let log = EventLog(catalog: catalog, logger: logger)
        // MOUNT/events (R24): the loop publishes to it, the filesystem reads it.
        let events = EventFeed()
        let controller = TaskLoop(state: state, catalog: catalog, log: log, configuration: configuration)
        // Each committed turn's changes, in commit order; lines are made only while someone reads.
        controller.onChanges = { changes in
            guard events.isFollowed else { return }
            events.publish(changes.map { EventLine.line(time: $0.at, id: $0.id, event: $0.event, name: $0.name) })
        }
        try controller.load()
        let trust = TLSTrust(caCertificate: configuration.caCertificate, environment: ProcessInfo.processInfo.environment)
        let engine = Engine(delegate: controller.client, maxConnectionsPerHost: configuration.maxConnectionsPerHost,
                            trust: trust)
        controller.attach(engine)
        // Both threads before the mount: one that cannot be made fails the
        // mount instead of leaving it unanswered.
        do { try engine.run() } catch { throw DaemonError(error.message) }
        try controller.prepare()

        let filesystem = DownloadFileSystem(controller: controller, events: events)
        // The source field of the mount names the state dir, so `unmount`
        // can find the daemon's pid file from the mountpoint alone.
        let source = state.root.contains(",") ? "downloadfs" : state.root
        var options = ["fsname=\(source)", "subtype=downloadfs", "default_permissions", "auto_unmount"]
        options += fuseOptions
        // Names the user's options in failures they may have caused.
        let given = fuseOptions.isEmpty ? "" : " with -o \(fuseOptions.joined(separator: ","))"
        let session: FuseSession
        do {
            session = try FuseSession(operations: filesystem, options: options,
                                      maxRead: MountPreflight.maxRead(fuseOptions))
        } catch {
            throw DaemonError("cannot mount at \(mountpoint): \(error.message)")
        }
        // Before the loop starts: every change it shows from now on is
        // announced to the kernel (R7).
        filesystem.announceChanges(through: session.notifier)
        do {
            try session.mount(at: mountpoint)
        } catch {
            throw DaemonError("cannot mount at \(mountpoint)\(given): \(error.message)")
        }

        let readiness = MountReadiness()
        let root = state.root
        let settings = configuration.summary
        readiness.probe(mountpoint, deadline: readyDeadline) {
            // Anything libfuse said on the way is not an error after all.
            let held = FuseSession.releaseHeldMessages()
            if !held.isEmpty { FileHandle.standardError.write(Data(held.utf8)) }
            let reads = session.enablePassthrough().map { "files/ is read through the daemon: \($0)" }
                ?? "files/ is read by the kernel straight from the state dir (FUSE passthrough)"
            log.daemon("mounted at \(mountpoint) (state dir \(root); \(settings)); \(reads)")
            claim.release()
            ready()
        }

        controller.begin()

        pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
        _ = session.run()
        pthread_sigmask(SIG_BLOCK, &blocked, nil)

        // Nothing is served any more: a notice could wait for ever on a
        // request nobody answers.
        session.stopNotifications()
        let outcome = readiness.loopEnded()
        controller.shutdown()
        // The tasks waited on have not ended: they resume at the next
        // mount (R3), so their readers are told the mount went (R22).
        controller.waits.failAll(.notConnected)
        // The loop has published its last line; the session still lives
        // for the pollers' notifications.
        events.end()
        let held = FuseSession.releaseHeldMessages()
        if outcome == .ready { log.daemon("unmounted from \(mountpoint)") }
        session.teardown()
        readiness.waitForProbe(seconds: 5)
        unlink(state.pidFile)
        withExtendedLifetime((lock, claim)) {}
        guard case .failed(let reason) = outcome else { return 0 }
        let why = reason
            ?? FuseSession.lastLine(held).map { "the kernel's FUSE handshake failed: \($0)" }
            ?? "the daemon was stopped before the mount was ready"
        throw DaemonError("cannot mount at \(mountpoint)\(given): \(why)")
    }
}
