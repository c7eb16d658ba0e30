import ArgumentParser
import DownloadFS
import Foundation
import Glibc

/// The `rpc-*` options (R70), the same for `downloadfs rpc` and for
/// `mount --rpc`, which hands them on to the `rpc` it starts.
struct RPCOptions: ParsableArguments {
    @Option(name: .customLong("rpc-listen-port"), help: ArgumentHelp("The port aria2's JSON-RPC listens on.", valueName: "n"))
    var port: Int = 6800

    @Option(name: .customLong("rpc-secret"), help: ArgumentHelp("Every call must carry token:SECRET (as aria2c's --rpc-secret).", valueName: "secret"))
    var secret: String?

    @Option(name: .customLong("rpc-secret-file"), help: ArgumentHelp("Read the secret from FILE, which no one else may read (safer than --rpc-secret, which ps shows).", valueName: "file"))
    var secretFile: String?

    @Flag(name: .customLong("rpc-listen-all"), help: "Listen on every interface, not only 127.0.0.1 and ::1 (needs a secret).")
    var listenAll = false

    @Flag(name: .customLong("rpc-allow-origin-all"), help: "Answer web pages (CORS) and send Access-Control-Allow-Origin: *.")
    var allowOriginAll = false

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--rpc-listen-port must be from 1 to 65535, not \(port)") }
        if secret != nil && secretFile != nil { throw ValidationError("give --rpc-secret or --rpc-secret-file, not both") }
        if secret?.isEmpty == true { throw ValidationError("--rpc-secret is empty") }
        if listenAll && secret == nil && secretFile == nil {
            throw ValidationError("--rpc-listen-all needs a secret (--rpc-secret-file FILE): anyone on the network could add and delete downloads")
        }
    }

    /// The arguments that give these options again, for the `rpc` that `mount --rpc` starts.
    var arguments: [String] {
        var out = ["--rpc-listen-port", String(port)]
        if let secret { out += ["--rpc-secret", secret] }
        if let secretFile { out += ["--rpc-secret-file", MountPreflight.absolute(secretFile)] }
        if listenAll { out.append("--rpc-listen-all") }
        if allowOriginAll { out.append("--rpc-allow-origin-all") }
        return out
    }

    /// The secret in force: the one given, or the first line of the file,
    /// which must be ours alone (R70); nil for none.
    func resolvedSecret() throws(ClientError) -> String? {
        guard let secretFile else { return secret }
        var info = stat()
        guard stat(secretFile, &info) == 0 else {
            throw ClientError("rpc: cannot read the secret file \(secretFile): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ClientError("rpc: the secret file \(secretFile) can be read by others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8),
              let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, !line.isEmpty else {
            throw ClientError("rpc: the secret file \(secretFile) is empty or not text")
        }
        return String(line)
    }
}
