import CCertificate

/// The file of `--ca-certificate` (R55), checked before anything is
/// mounted: libcurl only reads it at the first https connection, and a
/// file with no certificate in it (random bytes, an empty file, a private
/// key) then failed every https task for good with curl's "error setting
/// certificate file", long after the mount said it was ready.
public enum CACertificateFile {
    /// nil when OpenSSL finds at least one certificate in the readable file
    /// at `path`; else what to tell the user, in words that follow the
    /// option and its value (`MountOptionRefusal`).
    public static func problem(_ path: String) -> String? {
        var why = [CChar](repeating: 0, count: 256)
        let count = ccertificate_count_in_ca_file(path, &why, why.count)
        if count > 0 { return nil }
        let fix = "give a PEM file of CA certificates"
        if count == 0 { return "no PEM certificate in it; \(fix)" }
        let reason = String(decoding: why.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "OpenSSL cannot read it (\(reason.isEmpty ? "no reason given" : reason)); \(fix)"
    }
}
