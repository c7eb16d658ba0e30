/// `user.downloadfs.line` of `queue/`: the waiting line (R30) in the order
/// its tasks will start — queued and paused tasks alike, as aria2's
/// waiting queue holds both — one id per line. The kernel passes at most
/// 64 KiB of a value, so a line longer than that (about 9,000 tasks) is
/// cut after the last id that fits, and a last line `+N` says how many
/// more wait. aria2's door lists `tellWaiting` in this order, so a web
/// front end's "move up" shows where the task went. Answered by name,
/// never listed.
public enum WaitingLineAttribute {
    public static let name = "user.downloadfs.line"

    /// The most the kernel passes of an extended attribute's value.
    public static let capacity = 65536

    /// The line as the directory answers it: ids in start order, within
    /// `capacity` bytes, the ones that did not fit counted on a last line.
    public static func value(_ ids: [Int64], capacity: Int = capacity) -> [UInt8] {
        let lines = ids.lazy.map { "\($0)\n".utf8 }
        let fits = lines.reduce(0) { $0 + $1.count } <= capacity
        var bytes: [UInt8] = []
        for (index, line) in lines.enumerated() {
            let left = ids.count - index
            // Cut, when it must be, where the count of the rest still fits after.
            if !fits, bytes.count + line.count + "+\(left - 1)\n".utf8.count > capacity {
                bytes += "+\(left)\n".utf8
                break
            }
            bytes += line
        }
        return bytes
    }

    /// The ids a value lists, in start order, and how many more wait than
    /// it lists; nil for a value that is not such a line.
    public static func parse(_ value: String) -> (ids: [Int64], more: Int)? {
        var ids: [Int64] = []
        var more = 0
        for line in value.split(separator: "\n", omittingEmptySubsequences: true) {
            guard more == 0 else { return nil }
            if line.first == "+" {
                guard let count = Int(line.dropFirst()), count > 0 else { return nil }
                more = count
            } else {
                guard let id = Int64(line), id >= 0 else { return nil }
                ids.append(id)
            }
        }
        return (ids, more)
    }
}
