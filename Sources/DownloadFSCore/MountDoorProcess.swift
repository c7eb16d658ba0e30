/// How `mount --rpc` knows its aria2 door among the machine's processes
/// (R70): the door is a child of the daemon whose command line is
/// `PROGRAM rpc MOUNTPOINT --stop-mount-on-shutdown …`. `downloadfs
/// unmount` stops those doors first, since a door holds `MOUNT/events`
/// open and `fusermount3 -u` would answer EBUSY. Decided here from what
/// `/proc` shows, so a unit test reaches it; the shell only reads `/proc`.
public enum MountDoorProcess {
    /// The flag that marks a door `mount --rpc` started (its `aria2.shutdown` unmounts).
    public static let marker = "--stop-mount-on-shutdown"

    /// The door's arguments (after the program): `rpc MOUNTPOINT --stop-mount-on-shutdown OPTIONS…`.
    public static func arguments(mountpoint: String, options: [String]) -> [String] {
        ["rpc", mountpoint, marker] + options
    }

    /// Whether a process is `daemon`'s door for `mountpoint`, from its
    /// `/proc/PID/stat` line and its `/proc/PID/cmdline` (NUL-separated).
    public static func isDoor(statLine: String, commandLine: [UInt8], daemon: Int32, mountpoint: String) -> Bool {
        guard ProcessStat(line: statLine)?.parent == daemon else { return false }
        let words = commandLine.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        return words.count >= 4 && Array(words[1...3]) == arguments(mountpoint: mountpoint, options: [])
    }

    /// What a door `mount --rpc` started writes first on its stdout once it
    /// listens; a door that cannot start writes its one line there instead.
    public static let readyLine = "ready"

    /// What `mount --rpc` makes of the first line its door wrote (nil when
    /// none came within `seconds`): nil when it listens, else the one line
    /// saying why not (R70, R2).
    public static func startFailure(firstLine: String?, within seconds: Int) -> String? {
        guard firstLine != readyLine else { return nil }
        guard let firstLine, !firstLine.isEmpty else {
            return "downloadfs: mount --rpc: downloadfs rpc did not start within \(seconds) s"
        }
        return firstLine
    }

    /// After a door that listened has ended: the seconds to wait before
    /// starting it again, nil to leave it stopped. One ended by a signal (a
    /// crash, `kill -9`) comes back, for as long as the mount lives (R70);
    /// one that exited by itself (its mount went, `aria2.shutdown`, a
    /// SIGTERM it handled) or that the mount is stopping stays down. Each
    /// start that fails in a row doubles the wait, up to a minute.
    public static func restartDelay(endedBySignal: Bool, mountStopping: Bool, failedStarts: Int) -> Double? {
        guard endedBySignal, !mountStopping else { return nil }
        return min(60, Double(1 << min(failedStarts, 6)))
    }

}
