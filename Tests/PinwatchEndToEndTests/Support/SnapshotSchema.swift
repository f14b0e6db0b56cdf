import Foundation

/// docs/snapshot.schema.json checked by a real JSON Schema validator
/// (Debian's python3-jsonschema, installed by .ci/run).
enum SnapshotSchema {
    static let schema = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/snapshot.schema.json").path
    static let python = "/usr/bin/python3"

    /// Exit 0 when `document` (a file) is valid; the validator's message otherwise.
    static func validate(_ document: String, definition: String = "") throws -> PinwatchBinary.Outcome {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            if sys.argv[3]:
                schema = dict(schema["$defs"][sys.argv[3]], **{"$defs": schema["$defs"]})
            jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
            """
        return try PinwatchBinary.runShell(
            "\(Self.python) -c \(TmuxSession.quote(script)) \(TmuxSession.quote(Self.schema)) \(TmuxSession.quote(document)) '\(definition)'"
        )
    }
}
