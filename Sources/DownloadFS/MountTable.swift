import Foundation

/// Reads /proc/self/mountinfo: which paths are mount points, and which of
/// them are downloadfs mounts (their source is the state dir).
public enum MountTable {
    public struct Mount: Sendable {
        public var mountpoint: String
        public var fstype: String
        public var source: String
    }

    public static func mounts() -> [Mount] {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let halves = line.components(separatedBy: " - ")
            guard halves.count >= 2 else { return nil }
            let left = halves[0].split(separator: " ")
            let right = halves[1].split(separator: " ")
            guard left.count >= 5, right.count >= 2 else { return nil }
            return Mount(mountpoint: unescape(String(left[4])), fstype: String(right[0]), source: unescape(String(right[1])))
        }
    }

    public static func isMountPoint(_ path: String) -> Bool {
        mounts().contains { $0.mountpoint == path }
    }

    public static func downloadfsMounts() -> [Mount] {
        mounts().filter { $0.fstype == "fuse.downloadfs" }
    }

    /// mountinfo writes space, tab, newline and backslash as \ooo.
    static func unescape(_ s: String) -> String {
        var bytes: [UInt8] = []
        let raw = Array(s.utf8)
        var i = 0
        while i < raw.count {
            if raw[i] == UInt8(ascii: "\\"), i + 3 < raw.count,
               let value = UInt8(String(decoding: raw[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(raw[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
