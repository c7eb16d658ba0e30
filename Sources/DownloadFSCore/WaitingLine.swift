/// The queued tasks in the order they start (R16: position, then id), so
/// that filling a free slot costs the logarithm of the line, not its length:
/// with 1,000 or 100,000 queued tasks every finished download frees a slot.
///
/// A binary heap with lazy removal: a task that leaves the line (starts, is
/// paused, removed, or moved by `top`) is not searched for; its entry goes
/// stale and is dropped when it reaches the top. The owner says what is
/// current (`isCurrent`); stale entries are also swept out whenever they
/// outnumber the line, so the heap stays within a small multiple of it.
public struct WaitingLine: Sendable {
    public struct Entry: Sendable, Equatable {
        public var position: Int64
        public var id: Int64

        public init(position: Int64, id: Int64) {
            self.position = position
            self.id = id
        }

        static func < (a: Entry, b: Entry) -> Bool {
            a.position != b.position ? a.position < b.position : a.id < b.id
        }
    }

    private var heap: [Entry] = []

    public init() {}

    /// Entries held, stale ones included.
    public var storedCount: Int { heap.count }

    public mutating func push(_ entry: Entry) {
        heap.append(entry)
        siftUp(heap.count - 1)
    }

    /// The first `count` current entries in line order, each id once; stale
    /// entries met on the way are dropped for good.
    public mutating func first(_ count: Int, isCurrent: (Entry) -> Bool) -> [Entry] {
        var found: [Entry] = []
        var seen: Set<Int64> = []
        while found.count < count, let top = popMin() {
            if isCurrent(top) && seen.insert(top.id).inserted { found.append(top) }
        }
        for entry in found { push(entry) }
        return found
    }

    /// Keeps only current entries (each id once) when stale ones are more
    /// than `liveCount` plus some slack.
    public mutating func compact(liveCount: Int, isCurrent: (Entry) -> Bool) {
        guard heap.count > 2 * liveCount + 1024 else { return }
        var seen: Set<Int64> = []
        heap = heap.filter { isCurrent($0) && seen.insert($0.id).inserted }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private mutating func popMin() -> Entry? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return last }
        let top = heap[0]
        heap[0] = last
        siftDown(0)
        return top
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var least = left
            if left + 1 < heap.count && heap[left + 1] < heap[left] { least = left + 1 }
            guard heap[least] < heap[parent] else { return }
            heap.swapAt(least, parent)
            parent = least
        }
    }
}
