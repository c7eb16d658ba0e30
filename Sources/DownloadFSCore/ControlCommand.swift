import Foundation

/// A command written to a `ctl` file (R30 for `queue/<id>/ctl`, R31 for the
/// root `ctl`). One command per write; surrounding whitespace and the final
/// newline of `echo` are ignored.
public enum ControlCommand: Sendable, Equatable {
    case pause, resume, start, top
    /// `move N` (R30): to place N of the waiting line, 0 its head.
    case move(Int)
    /// `forget` (R34): drop a completed task, keep its file.
    case forget
    /// Per-task speed limit in bytes/s, 0 = none.
    case limit(Int64)
    /// Connections for this task (R18), within `TaskOptions.splitRange`.
    case split(Int)
    case maxActive(Int)
    /// Global speed limit in bytes/s, 0 = none.
    case globalLimit(Int64)
    /// Default connections for tasks without their own `split` (R18, R31).
    case globalSplit(Int)
    case pauseAll, resumeAll
    /// `forget-completed` (R34): `forget` on every completed task.
    case forgetCompleted

    /// Every command a task's `ctl` takes (R30), as written: a word, then
    /// `N` or `RATE` where it takes one. The refusals list them, the man
    /// page documents them, and a unit test parses each one, so the list
    /// and `parseTask` cannot part.
    public static let taskForms = ["pause", "resume", "start", "top", "move N", "limit RATE", "split N", "forget"]

    /// What `max-active N` takes, here and as `mount --max-active` (R31):
    /// `cat ctl` shows what can be written back.
    public static let maxActiveRange = 1...1000

    /// Every command `MOUNT/ctl` takes (R31), written as `taskForms` are.
    public static let globalForms = ["max-active N", "limit RATE", "split N", "pause-all", "resume-all", "forget-completed"]

    /// Parses a task `ctl` write, or returns the sentence explaining the refusal.
    public static func parseTask(_ text: String) -> Result<ControlCommand, ControlCommandError> {
        let words = splitWords(text)
        switch words.first {
        case "pause" where words.count == 1: return .success(.pause)
        case "resume" where words.count == 1: return .success(.resume)
        case "start" where words.count == 1: return .success(.start)
        case "top" where words.count == 1: return .success(.top)
        case "forget" where words.count == 1: return .success(.forget)
        case "move" where words.count == 2:
            // N past the end puts it last (R30): a number of any length.
            let digits = words[1]
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return .failure(ControlCommandError(
                    "bad place \"\(printable(words[1]))\" (use move N, N a whole number from 0, the head of the waiting line)"))
            }
            return .success(.move(Int(digits) ?? .max))
        case "limit" where words.count == 2:
            return rate(words[1]).map { .limit($0) }
        case "split" where words.count == 2:
            return connections(words[1]).map { .split($0) }
        default:
            return .failure(refusal(text, words, forms: taskForms))
        }
    }

    /// Parses a root `ctl` write.
    public static func parseGlobal(_ text: String) -> Result<ControlCommand, ControlCommandError> {
        let words = splitWords(text)
        switch words.first {
        case "pause-all" where words.count == 1: return .success(.pauseAll)
        case "resume-all" where words.count == 1: return .success(.resumeAll)
        case "forget-completed" where words.count == 1: return .success(.forgetCompleted)
        case "max-active" where words.count == 2:
            guard let n = Int(words[1]), maxActiveRange.contains(n) else {
                return .failure(ControlCommandError("bad max-active \"\(printable(words[1]))\" (use a whole number from "
                                                    + "\(maxActiveRange.lowerBound) to \(maxActiveRange.upperBound))"))
            }
            return .success(.maxActive(n))
        case "limit" where words.count == 2:
            return rate(words[1]).map { .globalLimit($0) }
        case "split" where words.count == 2:
            return connections(words[1]).map { .globalSplit($0) }
        default:
            return .failure(refusal(text, words, forms: globalForms))
        }
    }

    /// A known command with the wrong arguments is told its one form;
    /// anything else is told every command the file takes.
    private static func refusal(_ text: String, _ words: [String], forms: [String]) -> ControlCommandError {
        if let form = forms.first(where: { $0.split(separator: " ").first.map(String.init) == words.first }) {
            return ControlCommandError("\"\(printable(text))\" is not how \(words[0]) is written (use \(form))")
        }
        let list = forms.dropLast().joined(separator: ", ") + " or " + forms[forms.count - 1]
        return ControlCommandError("unknown command \"\(printable(text))\" (use \(list))")
    }

    /// A RATE; one that is not zero but under 1 byte/s is refused, never taken as "none".
    private static func rate(_ word: String) -> Result<Int64, ControlCommandError> {
        do throws(ByteRateError) {
            return .success(try ByteRate.read(word))
        } catch {
            return .failure(ControlCommandError(error.message))
        }
    }

    /// `split N`'s N, the same words `split=N` takes in `queue/new` (R10, R18).
    private static func connections(_ word: String) -> Result<Int, ControlCommandError> {
        guard let n = TaskOptions.splitCount(word) else {
            let range = TaskOptions.splitRange
            return .failure(ControlCommandError(
                "bad split \"\(printable(word))\" (use a whole number from \(range.lowerBound) to \(range.upperBound))"))
        }
        return .success(n)
    }

    private static func splitWords(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// The command as it can be shown in a log line: control characters escaped, cut short.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars.prefix(64) {
            // Two hex digits always: "\x0a" then "b" is not "\xab".
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            }
            else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
