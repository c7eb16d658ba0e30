import Foundation
import Glibc

/// Renders MOUNT/status for people: a progress bar in front of each task
/// row. On a terminal lines are cut to its width; otherwise they are whole
/// (plain lines for pipes and scripts, no escape codes).
enum StatusScreen {
    static let barWidth = 12

    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    static func render(table: String, width: Int?) -> String {
        var lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count >= 2 else { return table }
        let pad = String(repeating: " ", count: barWidth + 3)
        var out = [String]()
        for (index, line) in lines.enumerated() {
            let rendered: String
            if index == 0 {
                rendered = pad + line
            } else if index == lines.count - 1 {
                rendered = line
            } else {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let percent = fields.count > 2 && fields[2].hasSuffix("%") ? Double(fields[2].dropLast()) : nil
                rendered = bar(percent) + " " + line
            }
            out.append(width.map { fit(rendered, $0) } ?? rendered)
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The line cut to `width` columns, ending in "…" when something was cut
    /// (the name is last, so that is what loses its tail).
    static func fit(_ line: String, _ width: Int) -> String {
        line.count <= width ? line : String(line.prefix(max(0, width - 1))) + "…"
    }

    /// "[#####.......]"; "[???????????]" when the total is unknown.
    static func bar(_ percent: Double?) -> String {
        guard let percent else { return "[" + String(repeating: "?", count: barWidth) + "]" }
        let filled = max(0, min(barWidth, Int((percent / 100 * Double(barWidth)).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
    }
}
