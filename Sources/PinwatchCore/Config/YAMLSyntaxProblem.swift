import Yams

/// A YAML error as one configuration problem with the line Yams reports.
enum YAMLSyntaxProblem {
    static func problem(for error: Error, file: String) -> ConfigProblem {
        guard let yamlError = error as? YamlError else {
            return ConfigProblem(file: file, line: 0, key: "", message: "not valid YAML: \(error)")
        }
        switch yamlError {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
            let .composer(context, problem, mark, _):
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
}
