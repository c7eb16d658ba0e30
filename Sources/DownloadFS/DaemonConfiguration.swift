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
    /// Send stdout/stderr to STATE/daemon.log (the detached daemon).
    public var logToFile = false

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
