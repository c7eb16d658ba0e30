/// Where each column of the table starts, read from its header: the
/// table is aligned, so a column is the same span of every row.
struct StatusColumns {
    let names: [String]
    let starts: [Int]

    init(header: String) {
        var names: [String] = [], starts: [Int] = []
        var offset = 0, inWord = false
        for character in header {
            if character == " " {
                inWord = false
            } else if !inWord {
                inWord = true
                starts.append(offset)
                names.append("")
            }
            if inWord { names[names.count - 1].append(character) }
            offset += 1
        }
        self.names = names
        self.starts = starts
    }

    /// Where the name starts once `dropped` columns are cut.
    func nameStart(without dropped: [String]) -> Int {
        (starts.last ?? 0) - dropped.reduce(0) { $0 + width(of: $1) }
    }

    /// `line` without the spans of the `dropped` columns.
    func cut(_ line: String, dropping dropped: [String]) -> String {
        guard !dropped.isEmpty else { return line }
        var characters = Array(line)
        for name in dropped.compactMap({ names.firstIndex(of: $0) }).sorted(by: >) where name + 1 < starts.count {
            let span = starts[name]..<min(starts[name + 1], characters.count)
            if !span.isEmpty { characters.removeSubrange(span) }
        }
        return String(characters)
    }

    private func width(of name: String) -> Int {
        guard let index = names.firstIndex(of: name), index + 1 < starts.count else { return 0 }
        return starts[index + 1] - starts[index]
    }
}
