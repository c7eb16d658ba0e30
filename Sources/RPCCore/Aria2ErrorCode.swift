/// aria2's exit status for why a task failed (R72: `errorCode`), read from
/// the task's `error` sentence (R20, `TransferFailure.message`,
/// `TaskMachine`'s checksum sentence).
///
/// 3 resource not found (HTTP 404/410, "the server has no such file"), 9 disk full,
/// 24 authorisation (HTTP 401/407, a refused FTP login), 32 checksum
/// mismatch, 1 anything else (aria2's "unknown error").
enum Aria2ErrorCode {
    static func code(forError sentence: String?) -> Int {
        guard let sentence else { return 1 }
        let lower = sentence.lowercased()
        if lower.hasPrefix("http 404") || lower.hasPrefix("http 410") || lower.contains("no such file")
            || lower.contains("no such directory") {
            return 3
        }
        if lower.contains("no space left on device") { return 9 }
        if lower.hasPrefix("http 401") || lower.hasPrefix("http 407") || lower.contains("refused the login")
            || lower.contains("wrong user name or password") {
            return 24
        }
        if lower.hasPrefix("checksum mismatch") { return 32 }
        return 1
    }

    /// What aria2c shows for a download removed by the user.
    static let removed = 31
}
