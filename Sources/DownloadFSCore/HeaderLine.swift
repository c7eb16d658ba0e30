/// One line curl hands the header callback, taken apart as bytes.
///
/// Every response of a transfer comes through here (1,000 small files are
/// 10,000 header lines), so no Foundation: the name is lowercased as ASCII
/// (field names are tokens, RFC 9110 §5.1) and the value loses the spaces and
/// tabs around it and the line's CR LF.
public enum HeaderLine: Equatable, Sendable {
    /// `HTTP/1.1 200 OK` and the like: a new response begins (redirects,
    /// 100 Continue), so headers gathered so far belong to an earlier one.
    case statusLine
    case field(name: String, value: String)

    /// nil for a line that is neither (the blank line that ends the headers,
    /// a line without a colon).
    public static func parse(_ raw: UnsafeRawBufferPointer) -> HeaderLine? {
        var end = raw.count
        while end > 0 && (raw[end - 1] == 0x0A || raw[end - 1] == 0x0D) { end -= 1 }
        guard end > 0 else { return nil }
        if end >= 5 && raw[0] == 0x48 && raw[1] == 0x54 && raw[2] == 0x54 && raw[3] == 0x50 && raw[4] == 0x2F {
            return .statusLine  // "HTTP/"
        }
        guard let colon = raw[0..<end].firstIndex(of: 0x3A) else { return nil }
        let name = String(unsafeUninitializedCapacity: colon) { (buffer: UnsafeMutableBufferPointer<UInt8>) -> Int in
            for i in 0..<colon {
                let byte = raw[i]
                buffer[i] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return colon
        }
        var start = colon + 1
        while start < end && (raw[start] == 0x20 || raw[start] == 0x09) { start += 1 }
        while end > start && (raw[end - 1] == 0x20 || raw[end - 1] == 0x09) { end -= 1 }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
        return .field(name: name, value: value)
    }
}
