/// `tellWaiting`/`tellStopped`'s `(offset, num)` (R72), as aria2c's
/// `AbstractPaginationRpcMethod::getPaginationRange` reads them.
///
/// A `num` of 0 or less gives nothing. An offset from 0 counts from the
/// first item, and an offset past the end gives nothing. A negative offset
/// counts from the last item (-1 is the last) and the window runs
/// backwards from there: up to `num` items ending at it, given newest
/// first (aria2c reverses the list then). One before the first item
/// gives nothing.
struct ResultWindow: Equatable {
    let offset: Int64
    let num: Int64

    /// How many items from the first the window can show at most: it
    /// needs no more of the list (an offset from 0); nil when it may need
    /// the whole (a negative offset counts from the last).
    var itemsNeeded: Int? {
        guard num > 0 else { return 0 }
        guard offset >= 0 else { return nil }
        let (sum, overflow) = offset.addingReportingOverflow(num)
        return overflow || sum > Int64(Int.max) ? nil : Int(sum)
    }

    /// The items of `items` the window shows, in the order aria2c gives them.
    func slice<T>(_ items: [T]) -> [T] {
        guard num > 0 else { return [] }
        let size = Int64(items.count)
        var first = offset
        var count = num
        if offset < 0 {
            let last = offset + size
            guard last >= 0 else { return [] }
            first = last - (count - 1)
            if first < 0 {
                first = 0
                count = last + 1
            }
        } else if offset >= size {
            return []
        }
        let end = count >= size - first ? size : first + count
        let window = Array(items[Int(first)..<Int(end)])
        return offset < 0 ? window.reversed() : window
    }
}
