/// One request body as the dispatcher parsed it (`Aria2Dispatcher.call`):
/// whether it is brief — one call of a method that reads one task's
/// attributes or nothing (`Aria2Method.isBrief`), or no JSON at all — so
/// the server may answer it on its event loop, and the reply, worked out
/// when asked for. The body is parsed once, whichever thread answers.
public struct Aria2Call: Sendable {
    public let isBrief: Bool
    private let answer: @Sendable () -> Aria2Reply?

    public init(isBrief: Bool, answer: @escaping @Sendable () -> Aria2Reply?) {
        self.isBrief = isBrief
        self.answer = answer
    }

    /// The reply (does the call's I/O on the mount).
    public func reply() -> Aria2Reply? { answer() }
}
