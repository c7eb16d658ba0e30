/// How many connections each host has open, across all tasks, against
/// `--max-connections-per-host` (R18). Engine thread only.
final class HostSlots {
    var limit: Int
    private var open: [String: Int] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// Takes a slot on `host`; false when it already has `limit` connections.
    func take(_ host: String) -> Bool {
        let count = open[host, default: 0]
        guard count < limit else { return false }
        open[host] = count + 1
        return true
    }

    func release(_ host: String) {
        guard let count = open[host] else { return }
        open[host] = count > 1 ? count - 1 : nil
    }
}
