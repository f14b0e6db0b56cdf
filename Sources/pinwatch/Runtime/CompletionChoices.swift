import ArgumentParser

/// What the shells complete where a word is not a file name. The shell
/// asks the binary (`pinwatch ---completion …`) at each Tab, so a theme
/// dropped into a theme folder is offered without regenerating the script.
enum CompletionChoices {
    /// Built-in themes and every `NAME.yaml` in the theme folders, found as
    /// `--theme NAME` finds them.
    static let themes = CompletionKind.custom { _, _, _ in ThemeChoice.availableNames() }
}
