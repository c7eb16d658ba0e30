/// A parsed `Content-Range` header: `bytes 100-199/1000`, `bytes */1000`, `bytes 100-199/*`.
///
/// Resuming (R52) hinges on where the returned range starts and on the total
/// it reports, so malformed or inconsistent values parse to nil rather than
/// to a guess.
public struct ContentRange: Sendable, Equatable {
    /// First byte, nil for the unsatisfied form `bytes */N`.
    public var start: Int64?
    /// Last byte (inclusive), nil for `bytes */N`.
    public var end: Int64?
    /// Complete length, nil for `/*`.
    public var total: Int64?

    public init(start: Int64?, end: Int64?, total: Int64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    public static func parse(_ s: String) -> ContentRange? {
        let text = s.trimmingSpacesAndTabs()
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = text.dropFirst(6).trimmingSpacesAndTabs()
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        var total: Int64?
        if halves[1] != "*" {
            guard let t = number(halves[1]) else { return nil }
            total = t
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }
            return ContentRange(start: nil, end: nil, total: total)
        }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = number(bounds[0]), let end = number(bounds[1]), start <= end else {
            return nil
        }
        if let total, end >= total { return nil }
        return ContentRange(start: start, end: end, total: total)
    }

    private static func number(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(s)
    }
}
