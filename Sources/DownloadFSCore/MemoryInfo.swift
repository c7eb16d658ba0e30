/// What `/proc/meminfo` says, as far as the daemon needs it.
public enum MemoryInfo {
    /// `Dirty:` in bytes (the file gives kB): page-cache data written but
    /// not yet under writeback, every filesystem's. Nil when the text has
    /// no such line.
    public static func dirtyBytes(inMeminfo text: String) -> Int64? {
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) where line.starts(with: "Dirty:".utf8) {
            let words = line.dropFirst("Dirty:".utf8.count).split(separator: UInt8(ascii: " "))
            guard let first = words.first, let kilobytes = Int64(String(Substring(first))) else { return nil }
            let unit = words.dropFirst().first.map { String(Substring($0)) }
            guard unit == nil || unit == "kB" else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}
