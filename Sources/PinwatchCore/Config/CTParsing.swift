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
