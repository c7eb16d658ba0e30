/// What a mount finds on disk for one task (R50, R51): the size of its
/// partial data and of a finished file under its name, nil where none.
public struct DataOnDisk: Sendable, Equatable {
    public var partialSize: Int64?
    public var finishedSize: Int64?

    public init(partialSize: Int64?, finishedSize: Int64?) {
        self.partialSize = partialSize
        self.finishedSize = finishedSize
    }
}
