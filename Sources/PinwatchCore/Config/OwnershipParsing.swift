import Yams

extension ConfigDocumentParser {
    /// `labels: {team: payments, env: prod}`: validated, every bad entry a problem.
    mutating func ownerLabels(_ node: Node, key: String) -> [String: String]? {
        guard !isNull(node) else { return [:] }
        guard let pairs = mapping(node, key: key) else { return nil }
        if pairs.count > OwnerLabelRules.maximumLabels {
            report(node, key: key, "\(pairs.count) labels: at most \(OwnerLabelRules.maximumLabels) per host or pin set")
            return nil
        }
        var labels: [String: String] = [:]
        var valid = true
        for pair in pairs {
            if let problem = OwnerLabelRules.nameProblem(pair.key) {
                report(pair.keyNode, key: "\(key).\(pair.key)", problem)
                valid = false
                continue
            }
            guard let value = string(pair.value, key: "\(key).\(pair.key)") else {
                valid = false
                continue
            }
            if let problem = OwnerLabelRules.valueProblem(value) {
                report(pair.value, key: "\(key).\(pair.key)", problem)
                valid = false
                continue
            }
            labels[pair.key] = value
        }
        return valid ? labels : nil
    }

    /// `runbook: https://…`.
    mutating func runbook(_ node: Node, key: String) -> String? {
        guard let text = string(node, key: key) else { return nil }
        if let problem = OwnerLabelRules.runbookProblem(text) {
            report(node, key: key, problem)
            return nil
        }
        return text
    }

    /// A `pinsets:` entry without its `labels:` and `runbook:`, which are
    /// read here and remembered for the hosts that name the set.
    mutating func takingOwnership(of node: Node, pinset name: String, into config: inout Config) -> Node {
        guard case .mapping(let mapping) = node else { return node }
        var kept: [(Node, Node)] = []
        for (keyNode, value) in mapping {
            switch keyNode.scalar?.string {
            case "labels":
                if let labels = ownerLabels(value, key: "pinsets.\(name).labels") { config.pinsetLabels[name] = labels }
            case "runbook":
                if let link = runbook(value, key: "pinsets.\(name).runbook") { config.pinsetRunbooks[name] = link }
            default:
                kept.append((keyNode, value))
            }
        }
        return .mapping(Node.Mapping(kept, mapping.tag, mapping.style, mapping.mark))
    }
}
