/// Trimming of the blanks that matter in input files and headers: spaces and
/// tabs only.
///
/// Foundation's `trimmingCharacters(in: .whitespaces)` also eats other Unicode
/// spaces; the input grammar (R10) and HTTP's field values only know space
/// and tab. Both are ASCII, so the UTF-8 view finds the ends without decoding.
extension StringProtocol {
    public func trimmingSpacesAndTabs() -> String {
        let text = Substring(self)
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
              let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        return String(text[first...last])
    }
}
