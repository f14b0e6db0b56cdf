import Yams

/// Typed access to YAML nodes that records a problem instead of failing.
///
/// Every accessor returns nil after recording what was wrong, so callers
/// simply skip the value and carry on collecting problems. Keys are
/// autoclosures: a configuration of 10,000 hosts reads 50,000 values, and
/// their dotted paths (`hosts[12].connect`) are needed only for a problem.
protocol NodeReading {
    var file: String { get }
    mutating func report(line: Int, key: String, _ message: String)
}

extension NodeReading {
    func line(of node: Node) -> Int { node.mark?.line ?? 0 }

    mutating func report(_ node: Node, key: String, _ message: String) {
        report(line: line(of: node), key: key, message)
    }

    /// The key/value pairs of a mapping with string keys; other keys are problems.
    mutating func mapping(_ node: Node, key: @autoclosure () -> String) -> [(key: String, keyNode: Node, value: Node)]? {
        guard case .mapping(let mapping) = node else {
            report(node, key: key(), "expected a mapping, found \(describe(node))")
            return nil
        }
        var pairs: [(key: String, keyNode: Node, value: Node)] = []
        pairs.reserveCapacity(mapping.count)
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                report(keyNode, key: key(), "keys must be plain strings")
                continue
            }
            pairs.append((scalar.string, keyNode, value))
        }
        return pairs
    }

    /// A list; a single scalar is read as a list of one, as users write `ca: sha256/…`.
    mutating func list(_ node: Node, key: @autoclosure () -> String) -> [Node]? {
        switch node {
        case .sequence(let sequence): return Array(sequence)
        case .scalar where isNull(node): return []
        case .scalar: return [node]
        default:
            report(node, key: key(), "expected a list, found \(describe(node))")
            return nil
        }
    }

    mutating func string(_ node: Node, key: @autoclosure () -> String) -> String? {
        guard case .scalar(let scalar) = node else {
            report(node, key: key(), "expected a string, found \(describe(node))")
            return nil
        }
        let value = scalar.string.trimmingWhitespace()
        guard !isNull(node), !value.isEmpty else {
            report(node, key: key(), "has no value")
            return nil
        }
        return value
    }

    mutating func integer(_ node: Node, key: @autoclosure () -> String, in range: ClosedRange<Int>) -> Int? {
        guard let text = string(node, key: key()) else { return nil }
        guard let value = Int(text) else {
            report(node, key: key(), "expected a whole number, found \(EchoedInput.quoted(text))")
            return nil
        }
        guard range.contains(value) else {
            report(node, key: key(), "\(value) is out of range \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return value
    }

    /// A plain `~`, `null` or nothing at all after the colon.
    func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else { return false }
        switch scalar.string {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar): return isNull(node) ? "nothing" : EchoedInput.quoted(scalar.string)
        }
    }
}
