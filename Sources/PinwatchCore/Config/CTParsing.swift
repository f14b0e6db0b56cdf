import Yams

extension ConfigDocumentParser {
    static let ctKeys = ["logs", "search"]

    /// `ct: {logs: FILE | built-in, search: URL}`; at least one of them.
    mutating func certificateTransparency(_ node: Node) -> CTSetting? {
        guard let pairs = mapping(node, key: "ct") else { return nil }
        var setting = CTSetting()
        var valid = true
        for pair in pairs {
            let key = "ct.\(pair.key)"
            switch pair.key {
            case "logs":
                guard let text = string(pair.value, key: key) else {
                    valid = false
                    continue
                }
                setting.logList = text == CTSetting.builtInLogList ? text : resolve(text)
            case "search":
                guard let text = string(pair.value, key: key) else {
                    valid = false
                    continue
                }
                if let problem = CTSetting.searchProblem(text) {
                    report(pair.value, key: key, problem)
                    valid = false
                } else {
                    setting.search = text
                }
            default:
                report(pair.keyNode, key: key, "unknown key" + DidYouMean.hint(pair.key, among: Self.ctKeys))
                valid = false
            }
        }
        if pairs.isEmpty {
            report(node, key: "ct", "give logs: FILE or search: URL (leave ct: out to keep it off)")
            valid = false
        }
        return valid ? setting : nil
    }
}

extension ConfigDocumentParser {
    /// When a client release requires Certificate Transparency, the keys of
    /// `ct: logs:` to check its SCTs with; without a list, a warning for
    /// each such release, since its SCTs cannot be counted.
    mutating func transparencyLogs(_ node: Node?, into config: inout Config) {
        let requiring = config.clients.filter { client in
            client.ctRequired || client.pins.rules.contains { $0.certificateTransparency == true }
        }
        guard !requiring.isEmpty else { return }
        guard let path = config.ct?.logList else {
            for client in requiring {
                config.clientWarnings.append(
                    "\(file): client \(EchoedInput.quoted(client.name)) requires Certificate Transparency, "
                        + "but there is no ct: logs: to check SCTs with: its hosts say so instead of ct_noncompliant")
            }
            return
        }
        guard let ctLogReader else { return }
        let logsNode = node.flatMap { mapping($0, key: "ct") }?.first { $0.key == "logs" }?.value
        do {
            config.sctLogs = try ctLogReader(path)
        } catch {
            report(line: logsNode.map { line(of: $0) } ?? 0, key: "ct.logs", "\(EchoedInput.quoted(path)): \(error)")
        }
    }
}
