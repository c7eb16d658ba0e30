/// `user.downloadfs.report` of a task's directory (`queue/<id>/`): the
/// task's three attributes in one value — the status (`statusAttribute`),
/// the mirrors (`mirrorsAttribute`, empty for a task with none) and the
/// byte ranges (`rangesAttribute`), each its own attribute's text, joined
/// by NUL bytes, which none of them holds. aria2's door asks it for every
/// `tellStatus` that shows files or a bitfield: one request to the daemon
/// where three separate ones each wait for a FUSE worker to be woken on a
/// machine busy downloading, which is where the door's slow calls wait.
public enum TaskReportAttribute {
    static let separator: UInt8 = 0

    /// The value the directory answers.
    public static func joined(status: [UInt8], mirrors: [UInt8], ranges: [UInt8]) -> [UInt8] {
        status + [separator] + mirrors + [separator] + ranges
    }

    /// The three texts of a value, nil unless it has exactly three parts.
    public static func parts(of value: String) -> (status: String, mirrors: String, ranges: String)? {
        let parts = value.utf8.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self),
                String(decoding: parts[2], as: UTF8.self))
    }
}
