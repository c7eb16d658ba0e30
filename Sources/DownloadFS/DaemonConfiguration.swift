/// The options of `downloadfs mount` (R1).
public struct DaemonConfiguration: Sendable {
    public var mountpoint: String
    public var stateDir: String
    public var maxActive: Int = 3
    public var maxTries: Int = 20
    /// Global limit in bytes/s; 0 for none.
    public var speedLimit: Int64 = 0
    public var fuseOptions: [String] = []
    public var onComplete: String?
    /// Send stdout/stderr to STATE/daemon.log (the detached daemon).
    public var logToFile = false

    public init(mountpoint: String, stateDir: String) {
        self.mountpoint = mountpoint
        self.stateDir = stateDir
    }
}
