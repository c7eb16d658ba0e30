/// The names in a task's directory, `queue/<id>/` (R20, R22, R23, R30).
///
/// Beside the files every task has, the directory holds the task's data
/// under the task's name — unless that name is one of theirs (`out=status`,
/// a server's `filename=ctl`): the two would share one name, listed twice
/// and the data out of reach. The data file then takes R17's next free
/// name, `status (1)`. Only that entry moves: the task keeps its name
/// (status, events) and `files/` holds the finished file under it.
public enum TaskDirectoryNames {
    public static let status = "status"
    public static let url = "url"
    public static let control = "ctl"
    public static let log = "log"
    /// Found by name, never listed (R22).
    public static let wait = "wait"

    /// The extended attribute of `url` that lists the task's other URLs
    /// still in use (R19), one per line, passwords `***` (R6); absent for a
    /// task with none. Read from memory, unlike the task's `log` (aria2's
    /// door lists a task's URIs from it).
    public static let mirrorsAttribute = "user.downloadfs.mirrors"

    /// The extended attribute of the task's data file (`queue/<id>/NAME`)
    /// that names the byte ranges the task holds (R18, R23): `ByteRanges`'
    /// text, half-open and comma separated (`0-1048576,2097152-3000000`),
    /// empty when none; the whole file once completed. Answered by name,
    /// never listed (copies of the file do not take it). aria2's door
    /// builds `bitfield` from it (R72).
    public static let rangesAttribute = "user.downloadfs.ranges"

    /// The extended attribute of `status` that holds the file's text, as a
    /// read of it would give (R20): the same lines in one request where
    /// `cat` needs four (open, read, flush, release), each a wake-up of a
    /// daemon that may be busy downloading. Answered by name, never
    /// listed. aria2's door reads every status through it (R72).
    public static let statusAttribute = "user.downloadfs.status"

    /// The extended attribute of the task's directory that holds the three
    /// above in one value (`TaskReportAttribute`). Answered by name, never
    /// listed.
    public static let reportAttribute = "user.downloadfs.report"

    /// The extended attribute of the task's directory that holds its place
    /// in the waiting line (`TaskSnapshot.place`) as a number and a
    /// newline; absent for a task that has none. Answered by name, never
    /// listed. aria2's door counts `changePosition`'s `POS_CUR` from it.
    public static let placeAttribute = "user.downloadfs.place"

    /// The names of the files every task directory holds.
    public static let fixed: Set<String> = [status, url, control, log, wait]

    /// The data file's name in the directory of a task whose place in
    /// `files/` is `name`: its own name, without the folder (R35).
    public static func dataFile(ofTaskNamed name: String) -> String {
        FileName.unique(FilesPath.name(of: name), isTaken: fixed.contains)
    }
}
