import Foundation
import DownloadFSCore

/// One task as aria2's `tellStatus` shows it (R72), read from its `status`
/// (R20) and its mirrors (R19, `MountedTask.mirrors`) through the mount.
///
/// Numbers are decimal strings, as aria2c sends them. `downloadSpeed` comes
/// from `status`'s `speed`, which is rounded to one decimal of its unit
/// (`11.8 MiB/s`): a client sees the speed the mount shows, not the byte.
struct Aria2TaskReport: Sendable, Equatable {
    /// The piece length aria2c reports by default (1 MiB).
    static let pieceLength: Int64 = 1 << 20

    let id: Int64
    var state: Aria2State
    let name: String?
    let folder: String?
    let total: Int64?
    let downloaded: Int64
    let speed: Int64
    let connections: Int
    let error: String?
    /// The first URL, then the mirrors still in use (R19).
    let uris: [String]
    /// Whether the task has made a request yet: its URIs are then `used`.
    let started: Bool
    /// The mountpoint, for paths.
    let mount: String
    /// The byte ranges held (`MountedTask.ranges`), when read: without them
    /// the downloaded bytes are taken as a prefix.
    var held: ByteRanges?

    /// The report for a task whose `status` text is `status`; nil when the
    /// text holds no id or state (not a task's status).
    init?(status: String, mirrors: [String], mount: String, held: ByteRanges? = nil) {
        let values = StatusReading.values(inStatus: status)
        guard let id = values["id"].flatMap({ Int64($0) }),
              let taskState = values["state"].flatMap(TaskState.init(rawValue:)) else { return nil }
        self.id = id
        self.state = Aria2State(taskState)
        self.name = values["name"]
        self.folder = values["dir"]
        self.total = values["total"].flatMap { Int64($0) }
        self.downloaded = values["downloaded"].flatMap { Int64($0) } ?? 0
        // "11.8 MiB/s" → "11.8MiB/s", a rate `ByteRate` reads (1024-based, as `Units` writes it).
        self.speed = values["speed"].flatMap { ByteRate.parse(String(decoding: $0.utf8.filter { $0 != 0x20 }, as: UTF8.self)) } ?? 0
        self.connections = values["connections"].flatMap { Int($0) } ?? 0
        self.error = values["error"]
        self.uris = (values["url"].map { [$0] } ?? []) + mirrors
        self.started = (values["attempts"].flatMap { Int($0) } ?? 0) > 0 || downloaded > 0
        self.mount = mount
        self.held = held
    }

    /// The data file's name in `queue/<id>/` (R23), nil before the task has a name.
    var dataFile: String? { name.map(TaskDirectoryNames.dataFile(ofTaskNamed:)) }

    var gid: String { Aria2GID.text(id) }

    /// The folder the file lands in: `MOUNT/files` or `MOUNT/files/DIR` (R35).
    var directory: String {
        let files = mount + "/files"
        guard let folder, !folder.isEmpty else { return files }
        return files + "/" + folder
    }

    /// The file's path: in `files/` once complete, else the task's data file (R23); "" before it has a name.
    var path: String {
        guard let name else { return "" }
        if state == .complete { return directory + "/" + name }
        return mount + "/queue/\(id)/" + (dataFile ?? name)
    }

    /// `getUris`: each URL with `used` once the task has made a request, else `waiting`.
    var uriList: JSONValue {
        .array(uris.map { .object(["uri": .string($0), "status": .string(started ? "used" : "waiting")]) })
    }

    /// `getFiles`: one file.
    var files: JSONValue {
        .array([.object([
            "index": .string("1"),
            "path": .string(path),
            "length": .string(String(total ?? 0)),
            "completedLength": .string(String(downloaded)),
            "selected": .string("true"),
            "uris": uriList,
        ])])
    }

    /// `getServers` of an active task: every URL in use. The mount gives no
    /// speed per mirror: the first carries the task's, the others 0.
    var servers: JSONValue {
        .array([.object([
            "index": .string("1"),
            "servers": .array(uris.enumerated().map { index, uri in
                .object(["uri": .string(uri), "currentUri": .string(uri),
                         "downloadSpeed": .string(index == 0 ? String(speed) : "0")])
            }),
        ])])
    }

    var numPieces: Int64 {
        guard let total, total > 0 else { return 0 }
        return (total + Self.pieceLength - 1) / Self.pieceLength
    }

    /// The pieces held, as aria2's hex bitfield (the first piece the high
    /// bit of the first byte): a piece is set when the task holds every byte
    /// of it (`held`, R72: "from the task's byte ranges"; all once complete;
    /// the downloaded bytes as a prefix when the ranges were not read).
    var bitfield: String {
        let pieces = numPieces
        let total = self.total ?? 0
        let ranges: ByteRanges = state == .complete ? .prefix(total) : held ?? .prefix(downloaded)
        var bytes = [UInt8](repeating: 0, count: Int((pieces + 7) / 8))
        for piece in 0..<pieces where ranges.covers(piece * Self.pieceLength..<min(total, (piece + 1) * Self.pieceLength)) {
            bytes[Int(piece / 8)] |= 0x80 >> UInt8(piece % 8)
        }
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Every key `tellStatus` gives for this task, as aria2c gives them:
    /// `bitfield` only when the size is known, `errorCode` and
    /// `errorMessage` only once the task has stopped.
    var fields: [String: JSONValue] {
        let active = state == .active
        var fields: [String: JSONValue] = [
            "gid": .string(gid),
            "status": .string(state.rawValue),
            "totalLength": .string(String(total ?? 0)),
            "completedLength": .string(String(downloaded)),
            "uploadLength": .string("0"),
            "downloadSpeed": .string(String(active ? speed : 0)),
            "uploadSpeed": .string("0"),
            "connections": .string(String(active ? connections : 0)),
            "dir": .string(directory),
            "files": files,
            "numPieces": .string(String(numPieces)),
            "pieceLength": .string(String(Self.pieceLength)),
        ]
        if numPieces > 0 { fields["bitfield"] = .string(bitfield) }
        switch state {
        case .complete:
            fields["errorCode"] = .string("0")
            fields["errorMessage"] = .string("")
        case .error:
            fields["errorCode"] = .string(String(Aria2ErrorCode.code(forError: error)))
            fields["errorMessage"] = .string(error ?? "")
        case .removed:
            fields["errorCode"] = .string(String(Aria2ErrorCode.removed))
            fields["errorMessage"] = .string("")
        case .active, .waiting, .paused:
            break
        }
        return fields
    }

    /// `tellStatus`'s struct: every field, or those `keys` name (unknown keys are left out, as aria2c does).
    func entry(keys: [String]?) -> JSONValue {
        let all = fields
        guard let keys, !keys.isEmpty else { return .object(all) }
        return .object(all.filter { keys.contains($0.key) })
    }
}
