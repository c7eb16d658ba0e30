/// A sorted map whose copies share their storage chunk by chunk.
///
/// The loop changes the task set while FUSE threads read the copy it last
/// published: with one Swift dictionary, the first change after a publish
/// copied every task (at a million tasks, per turn). Here a copy shares
/// every chunk, and a change copies only the chunk it touches (if another
/// copy still holds it) and the list of chunks — so each task is held once
/// in memory, whoever reads it.
///
/// Chunks are sorted arrays (no hash table's spare room), kept in chunk
/// number order; iteration is in key order when keys sort with their chunk
/// numbers (task ids do).
public struct ChunkedMap<Key: ChunkKey, Value: Sendable>: Sendable {
    final class Chunk: @unchecked Sendable {
        var entries: ContiguousArray<(key: Key, value: Value)>
        init(_ entries: ContiguousArray<(key: Key, value: Value)>) { self.entries = entries }
    }

    private var numbers: ContiguousArray<Int> = []
    private var chunks: ContiguousArray<Chunk> = []
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public subscript(key: Key) -> Value? {
        guard let c = chunkIndex(key.chunkNumber) else { return nil }
        let entries = chunks[c].entries
        let (at, found) = Self.search(entries, key)
        return found ? entries[at].value : nil
    }

    /// Sets `value` for `key`; the value it replaced, if any.
    @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let number = key.chunkNumber
        let c: Int
        if let found = chunkIndex(number) {
            c = found
        } else {
            c = insertionPoint(number)
            numbers.insert(number, at: c)
            chunks.insert(Chunk([]), at: c)
        }
        own(c)
        let (at, found) = Self.search(chunks[c].entries, key)
        if found {
            let old = chunks[c].entries[at].value
            chunks[c].entries[at].value = value
            return old
        }
        chunks[c].entries.insert((key, value), at: at)
        count += 1
        return nil
    }

    /// Removes `key`; its value, if it was there.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let c = chunkIndex(key.chunkNumber) else { return nil }
        let (at, found) = Self.search(chunks[c].entries, key)
        guard found else { return nil }
        own(c)
        let old = chunks[c].entries.remove(at: at).value
        count -= 1
        if chunks[c].entries.isEmpty {
            numbers.remove(at: c)
            chunks.remove(at: c)
        }
        return old
    }

    /// Every entry, chunk by chunk in chunk order, each chunk in key order.
    public func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        for chunk in chunks {
            for entry in chunk.entries { try body(entry.key, entry.value) }
        }
    }

    /// The entry `forEach` gives last (the highest task id).
    public var last: (key: Key, value: Value)? { chunks.last?.entries.last }

    /// The keys in the order `forEach` gives them.
    public var keys: [Key] {
        var out: [Key] = []
        out.reserveCapacity(count)
        forEach { key, _ in out.append(key) }
        return out
    }

    /// Up to `limit` entries from the first key at or after `start` (in
    /// `forEach`'s order), for readers that go through the map a piece at a
    /// time; and the key to start the next piece from, nil at the end.
    public func entries(from start: Key?, limit: Int) -> (entries: [(key: Key, value: Value)], next: Key?) {
        var out: [(key: Key, value: Value)] = []
        var c = start.map { insertionPoint($0.chunkNumber) } ?? 0
        while c < chunks.count {
            let entries = chunks[c].entries
            var at = 0
            if let start, numbers[c] == start.chunkNumber { at = Self.search(entries, start).at }
            while at < entries.count {
                if out.count == limit { return (out, entries[at].key) }
                out.append(entries[at])
                at += 1
            }
            c += 1
        }
        return (out, nil)
    }

    // MARK: -

    /// Makes chunk `c` this copy's own before it is changed.
    private mutating func own(_ c: Int) {
        if !isKnownUniquelyReferenced(&chunks[c]) { chunks[c] = Chunk(chunks[c].entries) }
    }

    private func chunkIndex(_ number: Int) -> Int? {
        let at = insertionPoint(number)
        return at < numbers.count && numbers[at] == number ? at : nil
    }

    /// Where chunk `number` is or would go.
    private func insertionPoint(_ number: Int) -> Int {
        var (low, high) = (0, numbers.count)
        while low < high {
            let mid = (low + high) / 2
            if numbers[mid] < number { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func search(_ entries: ContiguousArray<(key: Key, value: Value)>, _ key: Key) -> (at: Int, found: Bool) {
        var (low, high) = (0, entries.count)
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < entries.count && entries[low].key == key)
    }
}
