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
    /// One of 65,536 chunks by hash (seeded per process: chunks are never
    /// stored). Names change anywhere in the map: with 1,024 chunks a
    /// million names made each a thousand long, and forgetting 2,000 tasks
    /// a turn copied nearly all of them every turn. Only chunks that hold a
    /// name exist, so a small map stays small.
    public var chunkNumber: Int { hashValue & 0xFFFF }
}
