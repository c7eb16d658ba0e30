import DownloadFSCore

/// One extended attribute the mount answers, as the man page's FILESYSTEM
/// section lists it: the task's attributes (answered by name, never listed,
/// so copies of a file do not take them) and a completed file's origin (R41).
public struct MountAttribute: Sendable, Equatable {
    /// `user.downloadfs.status`.
    public let name: String
    /// The entries that answer it, and what it holds.
    public let text: String

    public static let all: [MountAttribute] = [
        MountAttribute(name: TaskDirectoryNames.statusAttribute, text: """
            Of queue/<id>/status and queue/<id>/: the status text, as a read gives it, in one \
            request to the daemon where cat makes four.
            """),
        MountAttribute(name: TaskDirectoryNames.mirrorsAttribute, text: """
            Of queue/<id>/url and queue/<id>/: the task's other URLs still in use, one per line, \
            passwords shown as ***; absent for a task without mirrors.
            """),
        MountAttribute(name: TaskDirectoryNames.rangesAttribute, text: """
            Of the data file and queue/<id>/: the byte ranges the task holds, start-end with \
            the end excluded, comma separated (0-1048576,4194304-5242880); empty before the first \
            byte, 0-SIZE once complete.
            """),
        MountAttribute(name: TaskDirectoryNames.reportAttribute, text: """
            Of queue/<id>/: the three above in one value, in that order, a NUL byte between them.
            """),
        MountAttribute(name: TaskDirectoryNames.placeAttribute, text: """
            Of queue/<id>/ of a queued or paused task: its place in the waiting line, the N of \
            move N that leaves it there (0 starts next); absent for any other task.
            """),
        MountAttribute(name: WaitingLineAttribute.name, text: """
            Of queue/: the waiting line, queued and paused tasks in the order they will start, one \
            id per line; past 64 KiB (about 9,000 tasks) a last line +N counts the rest.
            """),
        MountAttribute(name: "user.xdg.origin.url", text: """
            Of a completed file, in files/ and as queue/<id>/<name>: the URL it came from, without \
            user name or password. Listed, so cp -a and rsync -X keep it.
            """),
        MountAttribute(name: "user.mime_type", text: """
            Of a completed file, where the server named one: its Content-Type.
            """),
    ]
}
