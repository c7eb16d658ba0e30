/// Reads a speed limit such as `500K`, `2M`, `1.5MiB`, `100` or `0` (R1, R10, R30).
///
/// Every unit is 1024-based, as in aria2, whether written `K`, `KB` or `KiB`;
/// a trailing `B`, `/s` or `B/s` is allowed and the case of the unit does
/// not matter, so what users copy from aria2 or curl docs works. One case
/// does: `2Mb`, `500kb` — a lowercase `b` right after the unit is how bits
/// are written (a 2 Mb/s line moves 256 KiB/s), so it is refused rather
/// than read as eight times the limit the user meant. Only a rate whose value is zero
/// (`0`, `0K`, `0.0`) means "no limit": a rate that is not zero but comes to
/// less than 1 byte/s (`0.5`, `0.0001K`) is refused, since rounding it down
/// would quietly remove the limit the user asked for.
public enum ByteRate {
    /// Bytes per second, or nil for a rate `read` refuses.
    public static func parse(_ s: String) -> Int64? {
        try? read(s)
    }

    /// Bytes per second (fractions of a byte dropped), or why the rate is refused.
    public static func read(_ s: String) throws(ByteRateError) -> Int64 {
        let shown = s.trimmingSpacesAndTabs()
        var text = Substring(shown.lowercased())
        if text.hasSuffix("/s") { text = text.dropLast(2) }
        if text.hasSuffix("b") {
            // `text` is lowercased: the case the user wrote is in `shown`.
            let written = shown.dropLast(shown.count - text.count)
            if written.hasSuffix("b"), let unit = text.dropLast().last, "kmg".contains(unit) { throw .bits(shown) }
            text = text.dropLast()
        }
        var multiplier: Double = 1
        let hasBinaryI = text.hasSuffix("i")
        if hasBinaryI { text = text.dropLast() }
        switch text.last {
        case "k": multiplier = 1024
        case "m": multiplier = 1024 * 1024
        case "g": multiplier = 1024 * 1024 * 1024
        default:
            if hasBinaryI { throw .unreadable(shown) }
        }
        if multiplier != 1 { text = text.dropLast() }
        guard let value = parseDecimal(text) else { throw .unreadable(shown) }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes < 9.2e18 else { throw .unreadable(shown) }
        // By the digits, not the Double: a tiny value may underflow to 0.
        if bytes == 0 && text.contains(where: { $0 != "0" && $0 != "." }) { throw .belowSmallest(shown) }
        return Int64(bytes)
    }

    /// `bytesPerSecond` as a RATE that `read` takes back to the same number
    /// (R30, R31: reading a `ctl` shows lines that can be written back) —
    /// for every number `read` gives (above 2^53 it gives only what a Double
    /// holds, and so does the text written for one).
    ///
    /// In the largest unit it comes to at least one of, whole (`2M`, `500K`)
    /// or with a fraction of one to three digits that reads back exactly
    /// (`1.5M`, `1.125G`); else in the next unit down; else plain bytes
    /// (`1000`). `0` is no limit; a negative number, which no limit is, is
    /// shown as `0` too.
    public static func written(_ bytesPerSecond: Int64) -> String {
        guard bytesPerSecond > 0 else { return "0" }
        for (size, letter) in [(Int64(1) << 30, "G"), (1 << 20, "M"), (1 << 10, "K")] where bytesPerSecond >= size {
            let whole = bytesPerSecond / size
            let rest = bytesPerSecond % size
            if rest == 0 { return "\(whole)\(letter)" }
            var scale: Int64 = 1
            for digits in 1...3 {
                scale *= 10
                // `rest / size` in `digits` decimal digits, if it has no more.
                guard rest * scale % size == 0 else { continue }
                let fraction = String(rest * scale / size)
                let text = "\(whole).\(String(repeating: "0", count: digits - fraction.count))\(fraction)\(letter)"
                if parse(text) == bytesPerSecond { return text }
                break
            }
        }
        return String(bytesPerSecond)
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
