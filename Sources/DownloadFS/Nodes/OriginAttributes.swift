import DownloadFSCore
import Foundation
import FuseKit

/// The freedesktop extended attributes of a completed file (R41), and its
/// mtime (R40), as its data file and its `files/` entry show them.
struct OriginAttributes {
    let record: DownloadTask

    init(_ record: DownloadTask) { self.record = record }

    /// R40: the server's Last-Modified, else the completion time.
    static func modified(_ record: DownloadTask) -> Date? {
        record.lastModified.flatMap(HeaderValue.httpDate) ?? record.completedAt
    }

    /// `user.mime_type` only when the server said one.
    var names: [String] {
        mimeType == nil ? ["user.xdg.origin.url"] : ["user.xdg.origin.url", "user.mime_type"]
    }

    func value(_ name: String) throws(Errno) -> [UInt8] {
        switch name {
        case "user.xdg.origin.url":
            return Array(URLNormalizer.strippingCredentials(record.url).utf8)
        case "user.mime_type":
            guard let mimeType else { throw .noAttribute }
            return Array(mimeType.utf8)
        default:
            throw .noAttribute
        }
    }

    /// The Content-Type without its parameters (`; charset=…`).
    private var mimeType: String? {
        guard let type = record.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces),
              !type.isEmpty else { return nil }
        return type
    }
}
