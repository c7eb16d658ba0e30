import CDigest
import DownloadFSCore
import Glibc

/// Computes a file's digest for `checksum=` verification (R56).
public enum FileDigest {
    /// Lower-case hex digest of the file at `path`, or the error sentence.
    public static func hex(of path: String, algorithm: Checksum.Algorithm) -> Result<String, TransferFailure> {
        let name: String
        switch algorithm {
        case .md5: name = "md5"
        case .sha1: name = "sha1"
        case .sha256: name = "sha256"
        case .sha512: name = "sha512"
        }
        guard let digest = cdigest_new(name) else {
            return .failure(.other(code: -1, message: "digest \(algorithm.rawValue) is not available"))
        }
        defer { cdigest_free(digest) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let err = errno
            return .failure(.writeError(errno: err, message: String(cString: strerror(err))))
        }
        defer { close(fd) }
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, size)
            if n < 0 {
                if errno == EINTR { continue }
                let err = errno
                return .failure(.writeError(errno: err, message: String(cString: strerror(err))))
            }
            if n == 0 { break }
            cdigest_update(digest, buffer, n)
        }
        var out = [UInt8](repeating: 0, count: 64)
        let length = cdigest_final(digest, &out)
        guard length > 0 else { return .failure(.other(code: -1, message: "digest failed")) }
        return .success(out[..<Int(length)].map { String(format: "%02x", $0) }.joined())
    }
}
