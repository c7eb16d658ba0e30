import Glibc

/// What `stat` shows for one node, and how long the kernel may cache it.
public struct FileAttributes: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case directory, regular }

    public var inode: UInt64
    public var kind: Kind
    /// Permission bits only (0o444, 0o755, …); the type bits come from `kind`.
    public var permissions: mode_t
    public var size: Int64
    public var modified: timespec
    public var uid: uid_t
    public var gid: gid_t
    /// Seconds the kernel may trust these attributes without asking again
    /// (0 for files whose size moves: status, logs, growing data).
    public var attributeTimeout: Double
    /// Seconds the kernel may trust the name → inode mapping of a lookup or
    /// create without asking again. A name can be trusted longer than the
    /// attributes: `queue/3/status` names the same node as long as task 3
    /// lives, while its size changes every second.
    public var entryTimeout: Double

    public init(inode: UInt64, kind: Kind, permissions: mode_t, size: Int64, modified: timespec,
                uid: uid_t, gid: gid_t, attributeTimeout: Double, entryTimeout: Double) {
        self.inode = inode
        self.kind = kind
        self.permissions = permissions
        self.size = size
        self.modified = modified
        self.uid = uid
        self.gid = gid
        self.attributeTimeout = attributeTimeout
        self.entryTimeout = entryTimeout
    }

    var stat: stat {
        var st = Glibc.stat()
        st.st_ino = ino_t(inode)
        st.st_mode = (kind == .directory ? S_IFDIR : S_IFREG) | permissions
        st.st_nlink = kind == .directory ? 2 : 1
        st.st_size = Int(size)
        st.st_blksize = 65536
        st.st_blocks = Int((size + 511) / 512)
        st.st_uid = uid
        st.st_gid = gid
        st.st_mtim = modified
        st.st_ctim = modified
        st.st_atim = modified
        return st
    }

    public static func == (a: FileAttributes, b: FileAttributes) -> Bool {
        a.inode == b.inode && a.kind == b.kind && a.permissions == b.permissions && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.uid == b.uid && a.gid == b.gid && a.attributeTimeout == b.attributeTimeout
            && a.entryTimeout == b.entryTimeout
    }
}
