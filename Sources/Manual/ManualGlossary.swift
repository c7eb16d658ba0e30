import DownloadFSCore

/// The sentences the man page says about the words the code defines:
/// status keys (`StatusRenderer.keys`), input options
/// (`InputOptionLine.knownKeys`) and ctl commands (`ControlCommand`'s
/// forms). `ManualPage` walks those lists and looks each word up here, so
/// a word the code gains is on the page at once; the unit test
/// `test_everyWordTheCodeDefinesHasItsSentence` fails until it has its
/// sentence too.
///
/// An entry for a word the code does not have is never shown.
public enum ManualGlossary {
    /// `queue/<id>/status` keys (R20).
    public static let statusKeys: [String: String] = [
        "id": "The task's id, the name of its directory in queue/.",
        "name": "The file's own name, without its folder (from out=, the server's Content-Disposition, or the URL).",
        "dir": "The folder under files/ the file is in, or goes to (dir=, or a mv since); - at the top of files/.",
        "url": "The first URL, a password shown as ***.",
        "state": "One of \(TaskState.allCases.map(\.rawValue).joined(separator: ", ")).",
        "progress": "The share downloaded, like 42.1%; - when the total is unknown.",
        "downloaded": "Bytes downloaded.",
        "total": "The file's size in bytes, or unknown when the server did not say.",
        "speed": "The speed over the last few seconds, in B/s, KiB/s, MiB/s or GiB/s; 0 B/s when not moving.",
        "connections": "How many transfers the task has open now; 0 when idle.",
        "eta": "The time left at that speed, like 45s, 2m27s or 1h02m; - when unknown or finished.",
        "attempts": "Transfer attempts started so far.",
        "error": "Why the task failed or is retrying, in words (HTTP 404 Not Found; connection reset; retry 3 in 8s); - when all is well.",
        "added": "When the task was added, in UTC (2026-11-21T05:30:12Z).",
        "completed": "When it completed; - until then.",
    ]

    /// The value each input option takes, as the page writes it (R10).
    public static let inputOptionValues: [String: String] = [
        "out": "NAME", "dir": "FOLDER", "header": "NAME: VALUE", "referer": "URL", "user-agent": "TEXT",
        "http-user": "NAME", "http-passwd": "SECRET", "all-proxy": "URL", "load-cookies": "FILE",
        "checksum": "ALGO=HEX", "max-download-limit": "RATE", "split": "N",
    ]

    /// What each input option does (R10).
    public static let inputOptions: [String: String] = [
        "out": "The file's name, instead of the server's or the URL's.",
        "dir": "A folder under files/ for the finished file: relative, /-separated, created as needed.",
        "header": "An extra request header. Repeatable.",
        "referer": "The Referer header; * sends each request's own URL.",
        "user-agent": "The User-Agent header.",
        "http-user": "The user name for HTTP basic authentication, and for FTP.",
        "http-passwd": "The password that goes with http-user; never shown.",
        "all-proxy": "This task's proxy, [SCHEME://][USER:PASSWORD@]HOST[:PORT] with SCHEME one of "
            + InputOptionLine.proxySchemes.joined(separator: ", ")
            + ", instead of the environment's; empty goes direct.",
        "load-cookies": "A Netscape cookies.txt, by absolute path, read when the task is added; the cookies that match the URL are sent.",
        "checksum": "The digest the finished file must have, ALGO one of "
            + Checksum.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
            + "; a mismatch fails the task with both digests in its error.",
        "max-download-limit": "This task's speed limit, like 500K, 2M or 1.5MiB (K, M and G are 1024-based).",
        "split": "Connections for this task, \(TaskOptions.splitRange.lowerBound) to \(TaskOptions.splitRange.upperBound), instead of the mount's.",
    ]

    /// What each command of a task's `ctl` does (R30), by its form.
    public static let taskCommands: [String: String] = [
        "pause": "Stop the transfer and keep the data; a paused task is never started by itself.",
        "resume": "A paused or failed task is queued again, or starts at once if a slot is free.",
        "start": "Start now even if every slot is busy: the active task started earliest goes back to queued.",
        "top": "Move to the head of the waiting line (move 0).",
        "move N": "A queued or paused task goes to place N of the waiting line, 0 being its head; past the end puts it last.",
        "limit RATE": "This task's speed limit, like 500K or 2M; 0 for none.",
        "split N": "Connections for this task, \(TaskOptions.splitRange.lowerBound) to \(TaskOptions.splitRange.upperBound).",
        "forget": "Drop a completed task and its log; its file stays in files/ as a plain file.",
    ]

    /// What each command of `MOUNT/ctl` does (R31), by its form.
    public static let globalCommands: [String: String] = [
        "max-active N": "How many tasks download at once; lowering it sends the most recently started back to queued.",
        "limit RATE": "The speed limit of the whole mount; 0 for none.",
        "split N": "Connections for tasks without their own split.",
        "pause-all": "Every queued, downloading or retrying task is paused.",
        "resume-all": "Every paused task is queued again.",
        "forget-completed": "forget every completed task.",
    ]
}
