/// What an open file handle refers to.
enum OpenFile {
    /// Content rendered at open (status, url, logs): every open is fresh (R7)
    /// and one reader sees one consistent text.
    case snapshot([UInt8])
    case input(InputSession)
    case taskControl(Int64)
    case rootControl
    case wait(Int64)
    /// Task data: a read-only descriptor of the partial or finished file.
    case data(id: Int64, fd: Int32)
}
