import DownloadFSCore

/// The options of `downloadfs mount` (R1).
public struct DaemonConfiguration: Sendable {
    public var mountpoint: String
    public var stateDir: String
    public var maxActive: Int = 3
    public var maxTries: Int = 20
    /// Global limit in bytes/s; 0 for none.
    public var speedLimit: Int64 = 0
    /// Connections per task for tasks without their own `split` (R18), in
    /// `TaskOptions.splitRange`; nil: not asked for (`SplitPolicy`).
    public var split: Int?
    /// At most this many connections go to one host, across all tasks (R18).
    public var maxConnectionsPerHost: Int = DaemonConfiguration.defaultMaxConnectionsPerHost
    public var fuseOptions: [String] = []
    public var onComplete: String?
    /// `--ca-certificate`: more CAs to trust, beside the system store (R55).
    public var caCertificate: String?
    /// Send stdout/stderr to STATE/daemon.log (the detached daemon).
    public var logToFile = false

    /// The settings in force, for the log line of each mount (whichever way
    /// they were given: options, or `-o name=value` from fstab, R8).
    public var summary: String {
        var parts = ["max-active \(maxActive)", "max-tries \(maxTries)",
                     "speed-limit " + (speedLimit > 0 ? Units.speed(Double(speedLimit)) : "none"),
                     "split " + (split.map(String.init) ?? "auto"),
                     "max-connections-per-host \(maxConnectionsPerHost)"]
        if let caCertificate { parts.append("ca-certificate \(caCertificate)") }
        if onComplete != nil { parts.append("on-complete set") }
        return parts.joined(separator: ", ")
    }

    /// `--max-connections-per-host`'s default (R1, R18).
    public static let defaultMaxConnectionsPerHost = 8
    /// What `--max-connections-per-host` accepts: one host is never given
    /// more than 64 connections, however the option is set.
    public static let maxConnectionsPerHostRange = 1...64

    public init(mountpoint: String, stateDir: String) {
        self.mountpoint = mountpoint
        self.stateDir = stateDir
    }
}
