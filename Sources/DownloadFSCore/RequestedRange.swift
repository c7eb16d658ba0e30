/// The bytes one request asks for (R18, R52): `[start, end)`, or from `start` to the end of the file.
///
/// A resume asks for an open range (`bytes=N-`); a segment of a multi-connection
/// download asks for a closed one (`bytes=A-B`). `ResumeDecision` judges the
/// answer against this, not against the stored offset, because a segment's
/// request starts wherever its place in the data file is.
public struct RequestedRange: Sendable, Equatable {
    /// First byte asked for; never negative (a negative start is taken as 0).
    public var start: Int64
    /// One past the last byte asked for (exclusive), nil to the end of the file.
    /// When set it must be greater than `start`: an empty range cannot be requested.
    public var end: Int64?

    public init(start: Int64, end: Int64?) {
        self.start = max(0, start)
        self.end = end
    }

    /// From `start` to the end of the file: a resume (R52), or the whole file when `start` is 0.
    public static func from(_ start: Int64) -> RequestedRange {
        RequestedRange(start: start, end: nil)
    }

    /// The value of the `Range` header: `bytes=A-B` (B = end − 1, inclusive, as
    /// HTTP counts) or `bytes=A-`; nil for the whole file, which a plain GET
    /// fetches without a Range header.
    public var header: String? {
        isWholeFile ? nil : spec
    }

    /// True for `bytes=0-`: the request is a plain GET and does not depend on
    /// anything stored about the file.
    public var isWholeFile: Bool { start == 0 && end == nil }

    /// The range in Range-header syntax even for the whole file (`bytes=0-`), for log messages.
    var spec: String {
        if let end { return "bytes=\(start)-\(end - 1)" }
        return "bytes=\(start)-"
    }
}
