import Foundation
import Glibc

/// Renders the status table for a terminal: a progress bar per task, cut to
/// the terminal's width. Without a terminal, the table is printed as is.
enum StatusScreen {
    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    static func render(table: String, root: String, width: Int?) -> String {
        guard let width else { return table }
        var lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count >= 2 else { return table }
        var out = [String]()
        for (index, line) in lines.enumerated() {
            if index == 0 || index == lines.count - 1 {
                out.append(String(line.prefix(width)))
                continue
            }
            out.append(String(line.prefix(width)))
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let percent = fields.count > 2 ? Double(fields[2].dropLast()) : nil
            out.append(bar(percent, width: min(width, 80)))
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func bar(_ percent: Double?, width: Int) -> String {
        let inner = max(10, width - 10)
        guard let percent else { return "    [" + String(repeating: "?", count: inner) + "]" }
        let filled = Int((percent / 100 * Double(inner)).rounded(.down))
        return "    [" + String(repeating: "#", count: max(0, min(inner, filled)))
            + String(repeating: ".", count: max(0, inner - filled)) + "]"
    }
}
