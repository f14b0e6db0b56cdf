import Foundation
import PinwatchCore
import Yams

/// Reads one catalogue YAML file (a family description or providers.yaml),
/// recording each problem with the file's label and line instead of
/// stopping, like the configuration loader.
struct CatalogueYAML {
    let file: String
    private(set) var problems: [ConfigProblem] = []

    init(file: String) {
        self.file = file
    }

    mutating func report(_ node: Node?, key: String, _ message: String) {
        problems.append(ConfigProblem(file: file, line: node?.mark?.line ?? 0, key: key, message: message))
    }

    mutating func document(_ text: String) -> Node? {
        do {
            return try YAMLComposer.compose(text)
        } catch {
            problems.append(ConfigProblem(file: file, line: 0, key: "", message: "not valid YAML: \(error)"))
            return nil
        }
    }

    /// The pairs of a mapping; keys outside `allowed` are problems.
    mutating func mapping(_ node: Node, key: String, allowed: Set<String>) -> [String: Node]? {
        guard case .mapping(let mapping) = node else {
            report(node, key: key, "expected a mapping")
            return nil
        }
        var values: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode, allowed.contains(scalar.string) else {
                let name = keyNode.scalar?.string ?? "?"
                report(
                    keyNode, key: key.isEmpty ? name : "\(key).\(name)",
                    "unknown key (expected \(allowed.sorted().joined(separator: ", ")))")
                continue
            }
            values[scalar.string] = value
        }
        return values
    }

    mutating func list(_ node: Node?, key: String) -> [Node] {
        guard let node else { return [] }
        switch node {
        case .sequence(let sequence): return Array(sequence)
        default:
            report(node, key: key, "expected a list")
            return []
        }
    }

    mutating func string(_ node: Node?, key: String) -> String? {
        guard let node else { return nil }
        guard case .scalar(let scalar) = node, !scalar.string.isEmpty else {
            report(node, key: key, "expected a string")
            return nil
        }
        return scalar.string
    }

    mutating func required(_ values: [String: Node], _ name: String, key: String, in node: Node) -> String? {
        guard let value = values[name] else {
            report(node, key: key, "needs \(name)")
            return nil
        }
        return string(value, key: key.isEmpty ? name : "\(key).\(name)")
    }

    /// A calendar date (`2027-02-10`), midnight UTC.
    mutating func date(_ node: Node?, key: String) -> Date? {
        guard let node, let text = string(node, key: key) else { return nil }
        guard let date = Self.parseDate(text) else {
            report(node, key: key, "expected a date (YYYY-MM-DD), found \(EchoedInput.quoted(text))")
            return nil
        }
        return date
    }

    mutating func integer(_ node: Node?, key: String, in range: ClosedRange<Int>) -> Int? {
        guard let node, let text = string(node, key: key) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            report(node, key: key, "expected a whole number in \(range.lowerBound)…\(range.upperBound), found \(EchoedInput.quoted(text))")
            return nil
        }
        return value
    }

    mutating func boolean(_ node: Node?, key: String) -> Bool? {
        guard let node, let text = string(node, key: key) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            report(node, key: key, "expected true or false, found \(EchoedInput.quoted(text))")
            return nil
        }
    }

    static func parseDate(_ text: String) -> Date? {
        DateText.dayStart(text)
    }
}
