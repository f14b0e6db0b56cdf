/// `acknowledged` in the hook JSON and the snapshot: null, or
/// `{until, reason, by, at, source}` while an acknowledgement holds.
enum AcknowledgementJSON {
    static func value(_ acknowledgement: Acknowledgement?) -> JSONValue {
        guard let acknowledgement else { return .null }
        return .object([
            ("until", .string(DateText.iso8601(acknowledgement.until))),
            ("reason", .string(acknowledgement.reason)),
            ("by", .optional(acknowledgement.by)),
            ("at", .optional(acknowledgement.at.map(DateText.iso8601))),
            ("source", .string(acknowledgement.source.rawValue)),
        ])
    }
}
