/// One entry of the mount's tree (SPEC §2) as the man page's FILESYSTEM
/// section lists it.
///
/// The tree is the filesystem's routers (`RootDirectory`, `TaskDirectory`),
/// which are adapters and not reachable from here; the integration test
/// `test_man_page_documents_the_mount` lists a real mount and fails when
/// an entry there is missing from this list.
public struct MountEntry: Sendable, Equatable {
    /// The path under the mountpoint, `queue/<id>/status`.
    public let path: String
    /// `0444`, `0644`, or nil for a directory.
    public let mode: String?
    /// What it is for, a sentence or two.
    public let text: String

    /// Every entry, in the order of SPEC §2.
    public static let layout: [MountEntry] = [
        MountEntry(path: "queue/", mode: nil, text: "One directory per task, named by its id (1, 2, 3, \u{2026}; never reused)."),
        MountEntry(path: "queue/new", mode: "0644", text: """
            Write URLs here, in the form of an aria2 input file (see INPUT OPTIONS). \
            Reading it back from offset 0 on the same open file gives the id of each task that \
            file's writes added, one per line. Any other file created in queue/ is read the same way \
            once closed, and does not stay.
            """),
        MountEntry(path: "queue/<id>/", mode: nil, text: """
            A task. rm -r (or rmdir) cancels it: the transfer stops and its data, its finished \
            file and its catalog row are deleted.
            """),
        MountEntry(path: "queue/<id>/status", mode: "0444", text: "The task's live status, one key: value per line (see STATUS KEYS)."),
        MountEntry(path: "queue/<id>/url", mode: "0444", text: "The URL as given, a password shown as ***."),
        MountEntry(path: "queue/<id>/ctl", mode: "0644", text: """
            Write a command here, one per write (see CONTROL COMMANDS). Reading shows the task's \
            settings in the same words (limit, split); each line written back is accepted.
            """),
        MountEntry(path: "queue/<id>/log", mode: "0444", text: "The task's event log, newest last."),
        MountEntry(path: "queue/<id>/wait", mode: "0444", text: """
            A read blocks until the task has completed or failed, then returns completed or \
            failed: WHY and a newline. Found by name, never listed, so recursive tools do not block on it.
            """),
        MountEntry(path: "queue/<id>/<name>", mode: "0444", text: """
            The data under the task's name. Any byte range can be read before the download is \
            done: a read of bytes not yet there blocks until they are, and makes the task fetch them next.
            """),
        MountEntry(path: "files/", mode: nil, text: """
            Completed downloads by name, with their real size and the server's modification time; \
            dir= puts them in folders. mv renames or moves (the catalog follows), mkdir and rmdir \
            make and remove folders, rm deletes a file and its task.
            """),
        MountEntry(path: "status", mode: "0444", text: """
            Every task as a table: id, state, progress, speed, ETA and name, and a last line with \
            the totals. downloadfs status shows it.
            """),
        MountEntry(path: "ctl", mode: "0644", text: """
            Commands for the whole mount (see CONTROL COMMANDS). Reading shows the settings in \
            force (max-active, limit, split).
            """),
        MountEntry(path: "log", mode: "0444", text: "The daemon's event log: tasks added, refused input and commands, errors."),
        MountEntry(path: "events", mode: "0444", text: """
            A read blocks until tasks change, then returns one line per change (see EVENTS). \
            Found by name, never listed.
            """),
    ]
}
