/// What reading a `ctl` file shows (R30, R31): the settings in force, one
/// per line, in the words the file takes, so `cat` shows what to write and
/// each line written back is accepted and keeps the value it shows.
///
/// `split` is the number of connections in force: the task's own, else the
/// mount's, else `SplitPolicy.defaultSplit`. Written back, a line names that
/// number outright, so a task that followed the mount's default (or the
/// adaptive default, which opens its connections only for a slow task)
/// then keeps it as its own (docs/usage.md, "Control").
public enum ControlSettings {
    /// `MOUNT/ctl`: `max-active`, the global `limit` and the default `split`.
    public static func mount(_ settings: MountSettings) -> String {
        "max-active \(settings.maxActive)\n"
            + "limit \(ByteRate.written(settings.globalLimit))\n"
            + "split \(settings.globalSplit ?? SplitPolicy.defaultSplit)\n"
    }

    /// `queue/<id>/ctl`: the task's own `limit` (0: none of its own; the
    /// global one is in `MOUNT/ctl`) and the `split` it gets.
    public static func task(_ task: DownloadTask, mount settings: MountSettings) -> String {
        "limit \(ByteRate.written(task.speedLimit))\n"
            + "split \(task.split ?? settings.globalSplit ?? SplitPolicy.defaultSplit)\n"
    }
}
