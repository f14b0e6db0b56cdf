/// Lines of a text file as people wrote them: `curl -sI` and Windows
/// editors end lines with CRLF, which Swift reads as one `"\r\n"`
/// character that never equals `"\n"`.
enum SourceLines {
    static func split(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { line in
            // A lone CR (the last line of a CRLF file cut short) ends a line too.
            line.last == "\r" ? String(line.dropLast()) : String(line)
        }
    }
}
