/// The mount-wide settings `MOUNT/ctl` changes (R31), as the task set holds
/// them now: what reading a `ctl` file shows (`ControlSettings`).
public struct MountSettings: Sendable, Equatable {
    /// How many tasks may download at once.
    public var maxActive: Int
    /// The global speed limit in bytes/s, 0 = none.
    public var globalLimit: Int64
    /// `split` for tasks without their own (R18); nil: nobody asked, the
    /// adaptive default (`SplitPolicy.choose`).
    public var globalSplit: Int?

    public init(maxActive: Int, globalLimit: Int64, globalSplit: Int?) {
        self.maxActive = maxActive
        self.globalLimit = globalLimit
        self.globalSplit = globalSplit
    }
}
