/// User input repeated in an error message: one line, no control
/// characters, at most 80 characters, so a 3 MB pin or a binary file does
/// not flood the terminal that shows the error.
public enum EchoedInput {
    public static let maximumCharacters = 80

    /// `text` in double quotes, shortened in the middle with `…` when long.
    public static func quoted(_ text: String) -> String {
        "\"\(shortened(text))\""
    }

    public static func shortened(_ text: String) -> String {
        let clean = TerminalText.sanitize(text)
        guard clean.count > maximumCharacters else { return clean }
        let keep = (maximumCharacters - 1) / 2
        return String(clean.prefix(keep)) + "…" + String(clean.suffix(keep))
    }
}
