import DownloadFSCore
import Foundation
import FuseKit

/// The freedesktop extended attributes of a completed file (R41), and its
/// mtime (R40), as its data file and its `files/` entry show them, and as
/// they are stored on the file itself in STATE/files (`store(on:)`).
struct OriginAttributes {
    static let urlName = "user.xdg.origin.url"
    static let mimeTypeName = "user.mime_type"
    /// Every attribute R41 gives, the only ones a plain file shows (`StoredOriginAttributes`).
    static let allNames = [urlName, mimeTypeName]

    /// The URL as given (credentials and all: they are stripped when shown).
    let url: String
    /// The server's Content-Type, parameters and all.
    let contentType: String?

    init(url: String, contentType: String?) {
        self.url = url
        self.contentType = contentType
    }

    init(_ record: DownloadTask) { self.init(url: record.url, contentType: record.contentType) }

    /// R40: the server's Last-Modified, else the completion time.
    static func modified(_ record: DownloadTask) -> Date? {
        FinishedFileTime.modified(lastModified: record.lastModified, landedAt: record.completedAt)
    }

    /// `user.mime_type` only when the server said one.
    var names: [String] {
        mimeType == nil ? [Self.urlName] : Self.allNames
    }

    func value(_ name: String) throws(Errno) -> [UInt8] {
        switch name {
        case Self.urlName:
            return Array(URLNormalizer.strippingCredentials(url).utf8)
        case Self.mimeTypeName:
            guard let mimeType else { throw .noAttribute }
            return Array(mimeType.utf8)
        default:
            throw .noAttribute
        }
    }

    /// Writes these attributes onto the file at `path` (R41, R42), so it
    /// carries them when nothing is mounted and once its task is forgotten
    /// (R34). `user.mime_type` is removed when the server gave none (the
    /// file may hold one from an earlier attempt). Returns the first
    /// failure, nil when both are in place: ENOTSUP where the filesystem
    /// takes no user attributes, E2BIG or ENOSPC for a URL too long for it.
    /// Callers keep the file either way.
    func store(on path: String) -> Errno? {
        StoredOriginAttributes(path: path).store(self)
    }

    /// The Content-Type without its parameters (`; charset=…`), without the
    /// spaces and tabs HTTP allows around it (Foundation's Unicode trimming
    /// cost 7 % of a finishing worker's time for 1,000 small files).
    ///
    /// One longer than a media type can be (RFC 6838: a type and a subtype
    /// of at most 127 characters each) is a server's junk and not shown:
    /// a filesystem keeps a few KiB per attribute (ext4 about 4,000 bytes),
    /// so it would be on the mount and not on the disk's copy, and one over
    /// 64 KiB would be listed but unreadable (E2BIG), failing `rsync -X`.
    private var mimeType: String? {
        guard let type = contentType?.split(separator: ";").first?.trimmingSpacesAndTabs(),
              !type.isEmpty, type.utf8.count <= Self.longestMediaType else { return nil }
        return type
    }

    static let longestMediaType = 255
}
