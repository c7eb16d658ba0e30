/// How a download's file name is chosen and made safe (R17).
///
/// Names come from users (`out=`), servers (Content-Disposition) and URLs, so
/// every one passes through `sanitize`: whatever it was, the result is a
/// single, visible, valid UTF-8 path component of at most 255 bytes.
public enum FileName {
    /// Longest file name Linux filesystems accept, in bytes.
    public static let maxBytes = 255
    /// The name used when nothing better is known.
    public static let fallback = "download"

    /// "/" → "_", control characters dropped, leading dots dropped, cut to 255 bytes keeping the extension.
    ///
    /// Control characters are C0 (including NUL), DEL and C1. The cut never
    /// splits a UTF-8 scalar. An empty result becomes "download".
    public static func sanitize(_ raw: String) -> String {
        let cleaned = sanitizedOrEmpty(raw)
        return cleaned.isEmpty ? fallback : cleaned
    }

    /// Like `sanitize(_:)`, for raw bytes: each byte that is not valid UTF-8 becomes "_".
    public static func sanitize(bytes: [UInt8]) -> String {
        sanitize(UTF8Validation.decodeReplacingInvalidBytes(bytes, with: UInt8(ascii: "_")))
    }

    /// The last path segment of `url` (no query, no fragment), percent-decoded and sanitised; nil if there is none.
    public static func fromURL(_ url: String) -> String? { fromURL(split: URLParts.split(url)) }

    static func fromURL(split: URLParts?) -> String? {
        guard let parts = split else { return nil }
        let path = parts.path
        let segment = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path
        guard !segment.isEmpty else { return nil }
        let decoded = UTF8Validation.decodeReplacingInvalidBytes(percentDecoded(segment), with: UInt8(ascii: "_"))
        let cleaned = sanitizedOrEmpty(decoded)
        return cleaned.isEmpty ? nil : cleaned
    }

    /// `"a.iso"` → `"a (1).iso"`, `"a"` → `"a (1)"`, `"a.tar.gz"` → `"a (1).tar.gz"`; stays within 255 bytes.
    /// In a folder (`FilesPath`) the suffix goes on the last part: `"m.d/a.iso"` → `"m.d/a (1).iso"`.
    ///
    /// `n <= 0` returns the name unchanged.
    public static func withCollisionSuffix(_ path: String, _ n: Int) -> String {
        guard n > 0 else { return path }
        let folder = FilesPath.folder(of: path)
        guard folder.isEmpty else { return FilesPath.join(folder, withCollisionSuffix(FilesPath.name(of: path), n)) }
        let name = path
        let suffix = " (\(n))"
        var (base, ext) = splitExtension(name)
        if suffix.utf8.count + ext.utf8.count >= maxBytes {
            base = name
            ext = ""
        }
        let budget = maxBytes - suffix.utf8.count - ext.utf8.count
        return truncated(base, toBytes: budget) + suffix + ext
    }

    /// `name` if free, else the first free of `name (1)`, `name (2)`, …
    public static func unique(_ name: String, isTaken: (String) -> Bool) -> String {
        isTaken(name) ? firstFree(name, from: 1, isTaken: isTaken).0 : name
    }

    /// The first free of `name (n)`, `name (n+1)`, … and its n.
    public static func firstFree(_ name: String, from n: Int, isTaken: (String) -> Bool) -> (String, Int) {
        var n = max(1, n)
        while true {
            let candidate = withCollisionSuffix(name, n)
            if !isTaken(candidate) { return (candidate, n) }
            n += 1
        }
    }

    /// The name `name` was made from by `withCollisionSuffix`, and its n;
    /// nil when it has no ` (n)` (or was cut too short to tell).
    public static func collisionBase(of path: String) -> (String, Int)? {
        let folder = FilesPath.folder(of: path)
        guard folder.isEmpty else {
            return collisionBase(of: FilesPath.name(of: path)).map { (FilesPath.join(folder, $0.0), $0.1) }
        }
        let name = path
        let (base, ext) = splitExtension(name)
        guard base.hasSuffix(")"), let open = base.lastIndex(of: "("), open > base.startIndex,
              base[base.index(before: open)] == " ",
              let n = Int(base[base.index(after: open)..<base.index(before: base.endIndex)]), n > 0 else { return nil }
        let wanted = String(base[..<base.index(before: open)]) + ext
        return withCollisionSuffix(wanted, n) == name ? (wanted, n) : nil
    }

    /// R17 order: `out=`; Content-Disposition (filename* first); last segment of the final URL; "download".
    ///
    /// A source that sanitises to nothing (e.g. `out=..`) is skipped.
    public static func resolve(out: String?, contentDisposition: String?, finalURL: String) -> String {
        resolve(out: out, contentDisposition: contentDisposition, finalURL: URLParts.split(finalURL))
    }

    /// `resolve` with the final URL already split.
    static func resolve(out: String?, contentDisposition: String?, finalURL: URLParts?) -> String {
        if let out {
            let cleaned = sanitizedOrEmpty(out)
            if !cleaned.isEmpty { return cleaned }
        }
        if let header = contentDisposition, let raw = ContentDisposition.filename(from: header) {
            let cleaned = sanitizedOrEmpty(raw)
            if !cleaned.isEmpty { return cleaned }
        }
        return fromURL(split: finalURL) ?? fallback
    }

    // MARK: - Pieces

    /// `sanitize` without the fallback: "" when nothing is left.
    static func sanitizedOrEmpty(_ raw: String) -> String {
        // Most names are short printable ASCII with nothing to change.
        let bytes = raw.utf8
        if bytes.count <= maxBytes, bytes.first != UInt8(ascii: "."),
           bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) { return raw }
        var scalars = String.UnicodeScalarView()
        for c in raw.unicodeScalars {
            if c.value < 0x20 || (0x7F...0x9F).contains(c.value) { continue }
            scalars.append(c == "/" ? "_" : c)
        }
        let visible = String(String.UnicodeScalarView(scalars.drop(while: { $0 == "." })))
        guard visible.utf8.count > maxBytes else { return visible }
        var (base, ext) = splitExtension(visible)
        if ext.utf8.count >= maxBytes {
            base = visible
            ext = ""
        }
        return truncated(base, toBytes: maxBytes - ext.utf8.count) + ext
    }

    /// Splits off the extension: the last ".xyz" (at most 20 bytes, no blanks), with ".tar" in front kept too.
    ///
    /// A leading dot does not start an extension, and text like "v1.2 final" has none,
    /// so suffixes land where a user expects them.
    static func splitExtension(_ name: String) -> (base: String, ext: String) {
        // On UTF-8 bytes: a dot, a space and a tab are single bytes that
        // never occur inside another scalar's encoding.
        func lastExtension(_ s: Substring) -> Substring.Index? {
            guard let dot = s.utf8.lastIndex(of: UInt8(ascii: ".")), dot != s.startIndex else { return nil }
            let ext = s.utf8[s.utf8.index(after: dot)...]
            guard !ext.isEmpty, ext.count <= 20, !ext.contains(UInt8(ascii: " ")), !ext.contains(UInt8(ascii: "\t"))
            else { return nil }
            return dot
        }
        let whole = name[...]
        guard let dot = lastExtension(whole) else { return (name, "") }
        var start = dot
        let before = whole[..<dot]
        if let tarDot = lastExtension(before), tarDot != before.startIndex,
           before.utf8[tarDot...].lazy.map({ $0 | 0x20 }).elementsEqual(".tar".utf8) {
            start = tarDot
        }
        return (String(whole[..<start]), String(whole[start...]))
    }

    /// The longest prefix of `s` that fits in `limit` UTF-8 bytes, cut between scalars.
    static func truncated(_ s: String, toBytes limit: Int) -> String {
        guard s.utf8.count > limit else { return s }
        var out = String.UnicodeScalarView()
        var used = 0
        for c in s.unicodeScalars {
            let size = String(c).utf8.count
            if used + size > limit { break }
            out.append(c)
            used += size
        }
        return String(out)
    }

    /// Percent-decodes to bytes; a "%" not followed by two hex digits is kept as is.
    public static func percentDecoded(_ s: Substring) -> [UInt8] {
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
               let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
