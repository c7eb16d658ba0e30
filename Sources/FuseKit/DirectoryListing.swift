/// The names of one directory listing, packed: every name's UTF-8 bytes with
/// a NUL after it in one array, beside its start, inode number and kind.
///
/// A listing is held from `opendir` to `releasedir` (`DirectoryBuffer`), and
/// `files/` over a million plain files (R34) is a million names: as an array
/// of structs each holding a `String` it cost the daemon 140 bytes a name at
/// its peak (the strings' own allocations, the array's growth, and the copies
/// of joining the parts), 140 MiB for one `ls`. Packed it is the name's bytes
/// plus 13, with no allocation per name, and the NUL-ended bytes go to
/// `fuse_add_direntry` as they are.
public struct DirectoryListing: Sendable {
    private var bytes: [UInt8] = []
    private var starts: [UInt32] = []
    private var inodes: [UInt64] = []
    private var directories: [Bool] = []

    public init() {}

    public var count: Int { inodes.count }

    /// Adds `name` (no NUL inside: the kernel never gives one, and the
    /// daemon makes none).
    public mutating func append(_ name: String, inode: UInt64, isDirectory: Bool) {
        starts.append(UInt32(bytes.count))
        bytes.append(contentsOf: name.utf8)
        bytes.append(0)
        inodes.append(inode)
        directories.append(isDirectory)
    }

    /// Entry `index`: its NUL-ended name, inode number and kind.
    public func withEntry<R>(_ index: Int, _ body: (UnsafePointer<CChar>, UInt64, Bool) -> R) -> R {
        bytes.withUnsafeBufferPointer { all in
            let name = UnsafeRawPointer(all.baseAddress!).advanced(by: Int(starts[index])).assumingMemoryBound(to: CChar.self)
            return body(name, inodes[index], directories[index])
        }
    }

    /// Entry `index`'s name (tests, and the rare caller that wants it).
    public func name(_ index: Int) -> String {
        withEntry(index) { name, _, _ in String(cString: name) }
    }

    public func inode(_ index: Int) -> UInt64 { inodes[index] }

    public func isDirectory(_ index: Int) -> Bool { directories[index] }
}
