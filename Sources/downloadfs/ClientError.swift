import ArgumentParser
import Foundation

/// A client command's failure: printed as one line, exit 1.
struct ClientError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = "downloadfs: " + message }

    func exit() -> ExitCode {
        FileHandle.standardError.write(Data((description + "\n").utf8))
        return ExitCode(1)
    }
}
