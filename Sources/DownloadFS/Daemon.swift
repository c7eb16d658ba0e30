import Catalog
import Engine
import Foundation
import FuseKit
import Glibc
import Logging

/// One mounted downloadfs, from checks to clean exit (R1–R3, R50).
///
/// Order: preflight → state dir and lock → catalog → load and reconcile →
/// FUSE session → mount → ready → engine → serve → checkpoint everything →
/// unmount → exit. The FUSE loop runs on the calling (main) thread; every
/// other thread is started with SIGINT/SIGTERM/SIGHUP blocked so libfuse's
/// handlers run on a FUSE thread and end the loop.
public enum Daemon {
    /// Mounts and serves until unmounted. `ready` runs once the mount is
    /// usable (the background parent is told then). Returns the exit code.
    public static func run(_ configuration: DaemonConfiguration, ready: () -> Void) throws(DaemonError) -> Int32 {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&blocked, sig) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        signal(SIGPIPE, SIG_IGN)

        let mountpoint = try MountPreflight.check(mountpoint: configuration.mountpoint)
        let state = StateDirectory(MountPreflight.absolute(configuration.stateDir))
        try state.create()
        if configuration.logToFile {
            let fd = open(state.daemonLog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            if fd >= 0 {
                dup2(fd, 1)
                dup2(fd, 2)
                close(fd)
            }
        }
        let lock = try StateLock(path: state.lock, stateDir: state.root)
        try? "\(getpid())\n".write(toFile: state.pidFile, atomically: true, encoding: .utf8)

        var logger = Logger(label: "downloadfs")
        logger.logLevel = ProcessInfo.processInfo.environment["DOWNLOADFS_DEBUG"] != nil ? .debug : .info
        let catalog: Catalog
        do { catalog = try Catalog(path: state.catalog) } catch { throw DaemonError(error.message) }
        let log = EventLog(catalog: catalog, logger: logger)
        let controller = DownloadController(state: state, catalog: catalog, log: log, configuration: configuration)
        try controller.load()

        let filesystem = DownloadFileSystem(controller: controller)
        // The source field of the mount names the state dir, so `unmount`
        // can find the daemon's pid file from the mountpoint alone.
        let source = state.root.contains(",") ? "downloadfs" : state.root
        var options = ["fsname=\(source)", "subtype=downloadfs", "default_permissions", "auto_unmount"]
        options += configuration.fuseOptions
        let session: FuseSession
        do {
            session = try FuseSession(operations: filesystem, options: options)
            try session.mount(at: mountpoint)
        } catch {
            throw DaemonError("cannot mount at \(mountpoint): \(error.message)")
        }
        log.daemon("mounted at \(mountpoint) (state dir \(state.root))")
        ready()

        let engine = Engine(delegate: controller)
        controller.attach(engine)
        engine.run()
        controller.begin()

        pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
        _ = session.run()
        pthread_sigmask(SIG_BLOCK, &blocked, nil)

        controller.shutdown()
        controller.waits.wakeAll("failed: unmounted\n")
        log.daemon("unmounted from \(mountpoint)")
        session.teardown()
        unlink(state.pidFile)
        withExtendedLifetime(lock) {}
        return 0
    }
}
