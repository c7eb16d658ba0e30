import CLinux
import FuseKit
import Glibc

/// The freedesktop extended attributes (R41) as a file in STATE/files
/// carries them: written when the file is moved in (and when its task is
/// forgotten, R34), read back for a plain file, which has no record.
///
/// Only `OriginAttributes.allNames` are read: whatever else a user put on
/// the file is not the mount's to show. Symlinks are never followed (the
/// `l` calls): a plain file is a regular file, checked by its node.
struct StoredOriginAttributes {
    let path: String

    /// The value of `name`; ENODATA when the file does not carry it (or its
    /// filesystem takes no user attributes), ENOENT when the file is gone.
    func value(_ name: String) throws(Errno) -> [UInt8] {
        guard OriginAttributes.allNames.contains(name) else { throw .noAttribute }
        // The value may change between asking its size and reading it: ask again.
        for _ in 0..<3 {
            let size = clinux_get_xattr(path, name, nil, 0)
            guard size >= 0 else { throw Self.readFailure(errno) }
            var value = [UInt8](repeating: 0, count: size)
            let read = value.withUnsafeMutableBytes { clinux_get_xattr(path, name, $0.baseAddress, $0.count) }
            if read >= 0 { return Array(value[..<read]) }
            if errno != ERANGE { throw Self.readFailure(errno) }
        }
        throw .io
    }

    /// Which of R41's attributes the file carries.
    func names() throws(Errno) -> [String] {
        var names: [String] = []
        for name in OriginAttributes.allNames {
            if clinux_get_xattr(path, name, nil, 0) >= 0 {
                names.append(name)
            } else {
                let failure = Self.readFailure(errno)
                if failure != .noAttribute { throw failure }
            }
        }
        return names
    }

    /// Sets both attributes from `origin` (see `OriginAttributes.store(on:)`).
    func store(_ origin: OriginAttributes) -> Errno? {
        var failure: Errno?
        for name in OriginAttributes.allNames {
            let done: Int32
            if let value = try? origin.value(name) {
                done = value.withUnsafeBytes { clinux_set_xattr(path, name, $0.baseAddress, $0.count) }
            } else {
                done = clinux_remove_xattr(path, name) == 0 || errno == ENODATA ? 0 : -1
            }
            if done != 0, failure == nil { failure = Errno(errno) }
        }
        return failure
    }

    /// A filesystem without user attributes has none to show: ENODATA, as
    /// for an attribute that is not there.
    private static func readFailure(_ code: Int32) -> Errno {
        code == ENODATA || code == ENOTSUP ? .noAttribute : Errno(code)
    }
}
