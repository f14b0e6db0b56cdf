import Foundation
import PinwatchCore
import Yams

/// A theme file that cannot be used: which file, which line, what is wrong.
package struct ThemeError: Error, Hashable, Sendable, CustomStringConvertible {
    package var file: String
    /// 1-based; 0 when the problem is the file as a whole.
    package var line: Int
    package var message: String

    package init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    package var description: String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}

/// Reads the theme YAML format:
///
/// ```yaml
/// name: default
/// roles:
///   leaf:   { fg: green }
///   header: { fg: white, bg: "#005f87", attributes: [bold] }
/// ```
///
/// Strict, like the configuration: an unknown key or colour is an error
/// with its line, because a typo silently ignored is a theme that lies.
enum ThemeParser {
    static func parse(yaml: String, file: String, fallbackName: String) throws -> Theme {
        if let found = YAMLAliasGuard.firstAliasOrAnchor(in: yaml) {
            throw ThemeError(file: file, line: found.line, message: YAMLAliasGuard.message(for: found))
        }
        let root: Node?
        do {
            root = try YAMLComposer.compose(yaml)
        } catch let error as YamlError {
            throw ThemeError(file: file, line: line(of: error), message: "not valid YAML: \(problem(of: error))")
        }
        guard let root else { throw ThemeError(file: file, line: 0, message: "empty theme file") }
        guard let top = root.mapping else {
            throw ThemeError(file: file, line: root.mark?.line ?? 0, message: "a theme is a mapping with `name` and `roles`")
        }
        var name = fallbackName
        var roles: [StyleRole: RoleAppearance] = [:]
        for (keyNode, value) in top {
            let key = keyNode.string ?? ""
            switch key {
            case "name":
                guard let text = value.string, !text.isEmpty else {
                    throw ThemeError(file: file, line: lineOf(value), message: "name: expected a string")
                }
                name = text
            case "description":
                break
            case "roles":
                guard let mapping = value.mapping else {
                    throw ThemeError(file: file, line: lineOf(value), message: "roles: expected a mapping of role to colours")
                }
                for (roleNode, roleValue) in mapping {
                    let roleName = roleNode.string ?? ""
                    guard let role = StyleRole(rawValue: roleName) else {
                        let known = StyleRole.allCases.map(\.rawValue).joined(separator: ", ")
                        throw ThemeError(file: file, line: lineOf(roleNode), message: "roles: unknown role `\(roleName)` (known: \(known))")
                    }
                    roles[role] = try appearance(roleValue, path: "roles.\(roleName)", file: file)
                }
            default:
                throw ThemeError(file: file, line: lineOf(keyNode), message: "unknown key `\(key)` (expected name, description, roles)")
            }
        }
        return Theme(name: name, roles: roles)
    }

    private static func appearance(_ node: Node, path: String, file: String) throws -> RoleAppearance {
        guard let mapping = node.mapping else {
            throw ThemeError(file: file, line: lineOf(node), message: "\(path): expected a mapping with fg, bg, attributes")
        }
        var look = RoleAppearance()
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            switch key {
            case "fg", "bg":
                let text = value.string ?? ""
                guard let color = TerminalColor(parsing: text) else {
                    throw ThemeError(
                        file: file, line: lineOf(value),
                        message: "\(path).\(key): unknown colour `\(text)` (use a name like green, 0-255, #rrggbb or default)")
                }
                if key == "fg" { look.foreground = color } else { look.background = color }
            case "attributes":
                let words: [Node] = value.sequence.map { Array($0) } ?? [value]
                for word in words {
                    switch word.string ?? "" {
                    case "bold": look.bold = true
                    case "reverse": look.reverse = true
                    case "underline": look.underline = true
                    default:
                        throw ThemeError(
                            file: file, line: lineOf(word),
                            message: "\(path).attributes: unknown attribute `\(word.string ?? "")` (bold, reverse, underline)")
                    }
                }
            default:
                throw ThemeError(file: file, line: lineOf(keyNode), message: "\(path): unknown key `\(key)` (fg, bg, attributes)")
            }
        }
        return look
    }

    private static func lineOf(_ node: Node) -> Int { node.mark?.line ?? 0 }

    private static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        default:
            return 0
        }
    }

    private static func problem(of error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
            return problem
        default:
            return String(describing: error)
        }
    }
}
