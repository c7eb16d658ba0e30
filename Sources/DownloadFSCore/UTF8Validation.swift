/// Strict UTF-8 checking and per-byte repair, shared by the input parser and name sanitising.
///
/// Swift's own decoder replaces a bad sequence with one U+FFFD; R17 wants each
/// bad byte to become "_", so the decoding rules (RFC 3629: no overlongs, no
/// surrogates, nothing above U+10FFFF) are spelled out here.
enum UTF8Validation {
    /// Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none.
    static func sequenceLength(_ b: [UInt8], at i: Int) -> Int {
        let b0 = b[i]
        func cont(_ k: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            i + k < b.count && range.contains(b[i + k])
        }
        switch b0 {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0...0xBF) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80...0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90...0xBF) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80...0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }

    static func isValid(_ b: [UInt8]) -> Bool {
        var i = 0
        while i < b.count {
            let n = sequenceLength(b, at: i)
            if n == 0 { return false }
            i += n
        }
        return true
    }

    /// Decodes `b`, turning every byte that is not part of a valid sequence into `replacement`.
    static func decodeReplacingInvalidBytes(_ b: [UInt8], with replacement: UInt8) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            let n = sequenceLength(b, at: i)
            if n == 0 {
                out.append(replacement)
                i += 1
            } else {
                out.append(contentsOf: b[i..<(i + n)])
                i += n
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
