import DownloadFSCore
import Foundation

/// A JSON-RPC call carried in a GET query (`?method=M&id=I&params=B64`,
/// optional `jsoncallback=F`), turned into the body a POST would carry.
///
/// aria2c's `json::decodeGetParams` is the model: `params` is the base64 of
/// the JSON array (percent-encoded in the URL); with neither `method` nor
/// `id`, `params` is the whole request (a batch). Two deliberate
/// differences: `method` and `id` are percent-decoded and written as JSON
/// strings with escapes (aria2c pastes them raw, so a quote in an id breaks
/// its JSON), and `jsoncallback` must be a JavaScript name (aria2c pastes
/// anything into a `text/javascript` reply).
struct JSONRPCGetRequest: Equatable {
    /// The request body for the dispatcher (`Aria2Dispatcher.call`).
    let body: [UInt8]
    /// The JSONP callback name; empty for a plain JSON reply.
    let callback: String

    /// nil when `jsoncallback` is not a JavaScript name (answered 400).
    init?(query: Substring) {
        var method: [UInt8]?
        var id: [UInt8]?
        var params: [UInt8]?
        var callback: [UInt8] = []
        for field in query.split(separator: "&", omittingEmptySubsequences: true) {
            // The last occurrence wins, as in aria2c.
            if field.hasPrefix("method=") {
                method = Self.percentDecoded(field.dropFirst(7))
            } else if field.hasPrefix("id=") {
                id = Self.percentDecoded(field.dropFirst(3))
            } else if field.hasPrefix("params=") {
                params = Self.base64Decoded(Self.percentDecoded(field.dropFirst(7)))
            } else if field.hasPrefix("jsoncallback=") {
                callback = Self.percentDecoded(field.dropFirst(13))
            }
        }
        guard callback.allSatisfy(Self.isCallbackByte) else { return nil }
        self.callback = String(decoding: callback, as: UTF8.self)
        // aria2c reads empty values as absent.
        if method?.isEmpty == true { method = nil }
        if id?.isEmpty == true { id = nil }

        if method == nil && id == nil {
            // A batch, or nothing: aria2c parses an empty request as a
            // JSON null and answers -32600 Invalid Request; `null` makes the
            // dispatcher give the same answer rather than -32700.
            let whole = params ?? []
            body = whole.isEmpty ? Array("null".utf8) : whole
            return
        }
        var json: [UInt8] = Array(#"{"jsonrpc":"2.0""#.utf8)
        if let method {
            json += Array(#","method":"#.utf8) + Self.jsonString(method)
        }
        if let id {
            // Always a string, as aria2c answers `"id":"1"` to `id=1`.
            json += Array(#","id":"#.utf8) + Self.jsonString(id)
        }
        if let params {
            // Bad base64 leaves nothing after the colon: the body does not
            // parse and the dispatcher answers -32700, as aria2c does.
            json += Array(#","params":"#.utf8) + params
        }
        json.append(UInt8(ascii: "}"))
        body = json
    }

    /// `%XX` decoded; `+` stays `+` (aria2c's rule, and base64 uses `+`).
    static func percentDecoded(_ text: Substring) -> [UInt8] {
        FileName.percentDecoded(text)
    }

    /// Standard or URL-safe base64, padding optional; empty when invalid.
    static func base64Decoded(_ text: [UInt8]) -> [UInt8] {
        var normalized = String(decoding: text, as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while normalized.utf8.count % 4 != 0 { normalized += "=" }
        return Data(base64Encoded: normalized).map { Array($0) } ?? []
    }

    /// A JSON string literal of UTF-8 bytes, quotes and controls escaped.
    static func jsonString(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// Letters, digits, `_`, `$` and `.` (`jQuery123_456`, `ns.cb`).
    private static func isCallbackByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"),
             UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
