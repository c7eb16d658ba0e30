extension RPCServerConfiguration {
    /// The JSON-RPC error a request over `maxRequestBytes` gets (R71), on
    /// HTTP (with 413) and on a WebSocket alike. aria2c closes an HTTP
    /// connection without a word and answers -32700 to a truncated
    /// WebSocket message; a sentence that says why is more use.
    func tooLargeReply() -> [UInt8] {
        let mebibyte = 1024 * 1024
        let limit = maxRequestBytes % mebibyte == 0 ? "\(maxRequestBytes / mebibyte) MiB" : "\(maxRequestBytes) bytes"
        return Array(#"{"id":null,"jsonrpc":"2.0","error":{"code":-32600,"message":"The request is over \#(limit), the most the RPC door accepts."}}"#.utf8)
    }
}
