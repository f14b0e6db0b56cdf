import Foundation
import Yams

extension ConfigDocumentParser {
    static let reportURIKeys = ["path", "token_file", "token_env"]

    /// `report_uri: {path: /report, token_file: report.token}` (or
    /// `token_env: NAME`): exactly one token source.
    mutating func reportURI(_ node: Node) -> ReportURISetting? {
        guard let pairs = mapping(node, key: "report_uri") else { return nil }
        var path: String?
        var sources: [ReportURISetting.TokenSource] = []
        var valid = true
        for pair in pairs {
            let key = "report_uri.\(pair.key)"
            switch pair.key {
            case "path":
                guard let text = string(pair.value, key: key) else {
                    valid = false
                    continue
                }
                if let problem = ReportURISetting.pathProblem(text) {
                    report(pair.value, key: key, problem)
                    valid = false
                }
                path = text
            case "token_file":
                guard let text = string(pair.value, key: key), !text.isEmpty else {
                    report(pair.value, key: key, "give the file that holds the token")
                    valid = false
                    continue
                }
                sources.append(.file(resolve(text)))
            case "token_env":
                guard let text = string(pair.value, key: key), !text.isEmpty,
                    text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") })
                else {
                    report(pair.value, key: key, "give the name of an environment variable (letters, digits, _)")
                    valid = false
                    continue
                }
                sources.append(.environment(text))
            default:
                report(pair.keyNode, key: key, "unknown key" + DidYouMean.hint(pair.key, among: Self.reportURIKeys))
                valid = false
            }
        }
        if path == nil {
            report(node, key: "report_uri.path", "missing (the path clients post to, such as /report)")
            valid = false
        }
        if sources.count != 1 {
            report(
                node, key: "report_uri",
                sources.isEmpty
                    ? "missing token_file or token_env: the endpoint refuses posts without the token"
                    : "give token_file or token_env, not both")
            valid = false
        }
        guard valid, let path, let source = sources.first else { return nil }
        return ReportURISetting(path: path, token: source)
    }
}
