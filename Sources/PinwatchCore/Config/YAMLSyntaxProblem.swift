import Yams

/// A YAML error as one configuration problem with the line Yams reports.
enum YAMLSyntaxProblem {
    static func problem(for error: Error, file: String, text: String) -> ConfigProblem {
        guard let yamlError = error as? YamlError else {
            return ConfigProblem(file: file, line: 0, key: "", message: "not valid YAML: \(error)")
        }
        switch yamlError {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
            let .composer(context, problem, mark, _):
            if let tabLine = indentedWithTab(text, near: mark.line) {
                // libyaml's own words ("found character that cannot start
                // any token") do not say what to change.
                return ConfigProblem(
                    file: file, line: tabLine, key: "",
                    message: "tabs are not allowed for indentation in YAML (line \(tabLine)): indent with spaces")
            }
            let detail = [context?.text, problem].compactMap { $0 }.joined(separator: " ")
            return ConfigProblem(file: file, line: mark.line, key: "", message: "not valid YAML: \(detail)")
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = Array(Set(duplicates)).sorted().joined(separator: ", ")
            return ConfigProblem(file: file, line: context.mark.line, key: keys, message: "duplicate key")
        default:
            let firstLine = "\(yamlError)".split(separator: "\n").first.map(String.init) ?? ""
            return ConfigProblem(file: file, line: 0, key: "", message: "not valid YAML: \(firstLine)")
        }
    }

    /// The 1-based line at or just before `line` whose indentation holds a
    /// tab, when there is one: where the scanner stopped.
    private static func indentedWithTab(_ text: String, near line: Int) -> Int? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for candidate in [line, line - 1] where candidate >= 1 && candidate <= lines.count {
            if lines[candidate - 1].prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") { return candidate }
        }
        return nil
    }
}
