/// Trimming of the blanks that matter in input files: spaces and tabs only.
///
/// Foundation's `trimmingCharacters(in: .whitespaces)` also eats other Unicode
/// spaces; the input grammar (R10) only knows space and tab.
extension StringProtocol {
    func trimmingSpacesAndTabs() -> String {
        let scalars = Array(unicodeScalars)
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[first...last])
        return String(out)
    }
}
