/// A task's mirrors as its `log` names them (R19): the line a new task's
/// log gets (`TaskSet.mirrorsLine`: `mirrors: 2 other URLs: A B`) and
/// one per mirror dropped (`mirror A dropped: REASON`). The mount shows
/// the first URL in `status`; the others are only in the log, passwords
/// already masked (R6). A log cut to what a mount keeps may have lost the
/// mirrors line of a very old, very talkative task: it then shows none.
enum MirrorLog {
    private static let listed = "mirrors: "
    private static let dropped = "mirror "

    /// Whether the log names the task's mirrors at all (its `mirrors:` line).
    static func namesMirrors(inLog log: String) -> Bool {
        log.split(separator: "\n").contains { line in
            guard let space = line.firstIndex(of: " ") else { return false }
            return line[line.index(after: space)...].hasPrefix(listed)
        }
    }

    /// The mirrors still in use, in the order they were given.
    static func liveMirrors(inLog log: String) -> [String] {
        var mirrors: [String] = []
        var gone: Set<String> = []
        for line in log.split(separator: "\n") {
            // `TIME MESSAGE` (TaskLogFile): the message follows the first space.
            guard let space = line.firstIndex(of: " ") else { continue }
            let message = line[line.index(after: space)...]
            if message.hasPrefix(listed), let colon = message.dropFirst(listed.count).firstRange(of: ": ") {
                mirrors += message[colon.upperBound...].split(separator: " ").map(String.init)
            } else if message.hasPrefix(dropped), let end = message.firstRange(of: " dropped: ") {
                gone.insert(String(message[message.index(message.startIndex, offsetBy: dropped.count)..<end.lowerBound]))
            }
        }
        return mirrors.filter { !gone.contains($0) }
    }
}
