/// Reads a speed limit such as `500K`, `2M`, `1.5MiB`, `100` or `0` (R1, R10, R30).
///
/// Every unit is 1024-based, as in aria2, whether written `K`, `KB` or `KiB`;
/// a trailing `B`, `/s` or `B/s` is allowed and case does not matter, so what
/// users copy from aria2 or curl docs works. `0` means "no limit".
public enum ByteRate {
    /// Bytes per second, or nil for a negative, empty or unreadable rate.
    public static func parse(_ s: String) -> Int64? {
        var text = Substring(s.trimmingSpacesAndTabs().lowercased())
        if text.hasSuffix("/s") { text = text.dropLast(2) }
        if text.hasSuffix("b") { text = text.dropLast() }
        var multiplier: Double = 1
        let hasBinaryI = text.hasSuffix("i")
        if hasBinaryI { text = text.dropLast() }
        switch text.last {
        case "k": multiplier = 1024
        case "m": multiplier = 1024 * 1024
        case "g": multiplier = 1024 * 1024 * 1024
        default:
            if hasBinaryI { return nil }
        }
        if multiplier != 1 { text = text.dropLast() }
        guard let value = parseDecimal(text) else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes < 9.2e18 else { return nil }
        return Int64(bytes)
    }

    /// `DIGITS [ "." DIGITS ]`, nothing else (no sign, exponent, hex, inf or nan).
    private static func parseDecimal(_ s: Substring) -> Double? {
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        return Double(s)
    }
}
