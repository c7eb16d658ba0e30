import Foundation
import Glibc

/// The layout of the state dir: the catalog, the lock, partial and finished
/// data (R42). Only `files/` is meant for users.
public struct StateDirectory: Sendable {
    public let root: String

    public init(_ root: String) { self.root = root }

    public var catalog: String { root + "/catalog.sqlite" }
    public var lock: String { root + "/lock" }
    public var pidFile: String { root + "/daemon.pid" }
    public var daemonLog: String { root + "/daemon.log" }
    public var partialDir: String { root + "/partial" }
    public var filesDir: String { root + "/files" }

    public func partial(_ id: Int64) -> String { partialDir + "/\(id)" }
    public func file(_ name: String) -> String { filesDir + "/" + name }

    /// The default: ${XDG_DATA_HOME:-$HOME/.local/share}/downloadfs (R1).
    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/downloadfs" }
        return (env["HOME"] ?? "/root") + "/.local/share/downloadfs"
    }

    /// Creates the directories; throws the user's sentence when it cannot (R2).
    public func create() throws(DaemonError) {
        for dir in [root, partialDir, filesDir] {
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw DaemonError("cannot create the state dir \(dir): \(Self.reason(error))")
            }
            guard access(dir, W_OK) == 0 else {
                throw DaemonError("cannot write to the state dir \(dir): \(String(cString: strerror(errno)))")
            }
        }
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return ns.localizedDescription
    }
}
