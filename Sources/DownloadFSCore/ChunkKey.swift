/// A key of a `ChunkedMap`: which chunk it lives in.
public protocol ChunkKey: Hashable, Comparable, Sendable {
    /// Keys with the same number share a chunk; chunks are kept in number order.
    var chunkNumber: Int { get }
}

extension Int64: ChunkKey {
    /// 256 consecutive ids per chunk: ids grow, so adding tasks fills the
    /// last chunk and never touches the others.
    public var chunkNumber: Int { Int(self >> 8) }
}

extension String: ChunkKey {
    /// One of 1,024 chunks by hash (seeded per process: chunks are never stored).
    public var chunkNumber: Int { hashValue & 1023 }
}
