/// `pinwatch lint --format json`: the findings as one document a CI job
/// can gate on, the same facts and exit code as the text lines (README,
/// "lint --format json"). Text from the sources is kept as read: JSON
/// escapes what a terminal would have to be protected from.
public enum LintJSON {
    public static func render(_ findings: [LintFinding], clients: Int, hosts: Int, nothingChecked: Bool) -> String {
        let errors = findings.filter { $0.level == .error }.count
        let warnings = findings.filter { $0.level == .warning }.count
        let document = JSONValue.object([
            ("clients", .int(clients)),
            ("hosts", .int(hosts)),
            ("errors", .int(errors)),
            ("warnings", .int(warnings)),
            ("notes", .int(findings.count - errors - warnings)),
            ("nothing_checked", .bool(nothingChecked)),
            ("findings", .array(findings.map(object))),
        ])
        return document.render() + "\n"
    }

    private static func object(_ finding: LintFinding) -> JSONValue {
        .object([
            ("level", .string(finding.level.rawValue)),
            ("client", .string(finding.client)),
            ("subject", .string(finding.subject)),
            ("message", .string(finding.message)),
            ("origin", .optional(finding.origin.isEmpty ? nil : finding.origin)),
        ])
    }
}
