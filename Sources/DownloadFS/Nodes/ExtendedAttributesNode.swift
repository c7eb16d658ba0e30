import FuseKit

/// A node that carries extended attributes (completed files, R41). Others
/// have none: ENODATA for a name, an empty list.
protocol ExtendedAttributesNode: Node {
    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8]
    func extendedAttributeNames() throws(Errno) -> [String]
}
