import Glibc

/// A failed `fdatasync` of a data file (R51, R54): nothing written since the
/// last sync that succeeded is trusted, and the attempt ends as a write error.
struct SyncError: Error, Sendable, Equatable {
    let errno: Int32

    var message: String { String(cString: strerror(errno)) }
}
