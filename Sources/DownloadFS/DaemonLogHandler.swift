import DownloadFSCore
import Foundation
import Glibc
import Logging

/// The daemon's own lines on stderr (STATE/daemon.log in the background,
/// kept bounded by `DaemonLogFile`):
/// `2026-11-24T05:10:00Z info task 3 completed: a.iso`.
///
/// swift-log's StreamLogHandler formats its timestamp through `localtime`
/// (time zone lookups on every line) and writes through a locked FILE: a
/// twentieth of the loop's time over 1,000 small downloads, which log two
/// lines each. Here a line is formatted with `Units.timestamp` and goes out
/// in one write(2), so lines from several threads never interleave.
struct DaemonLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// STATE/daemon.log when in the background: told of each line, so it
    /// stays bounded.
    let file: DaemonLogFile?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = Self.text(of: "\(event.message)", prefix: Units.timestamp(Date()) + " \(event.level) ")
        line.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = write(2, bytes.baseAddress! + done, bytes.count - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
            file?.wrote(done)
        }
    }

    /// A message as written: each of its lines with `prefix` and a newline.
    /// A message of several lines (`EventLog.show` gives one commit's lines
    /// as one) is that many lines, each with its own prefix.
    static func text(of message: String, prefix: String) -> String {
        var text = ""
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            text += prefix
            text += line
            text += "\n"
        }
        return text
    }
}
