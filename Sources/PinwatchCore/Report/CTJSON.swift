import Foundation

/// `ct`: the certificates Certificate Transparency logged for a host,
/// newest first, each with the releases it survives and breaks.
package enum CTJSON {
    package static func logged(_ facts: CTHostFacts?) -> JSONValue {
        .array((facts?.logged ?? []).map(certificate))
    }

    package static func certificate(_ logged: CTLoggedCertificate) -> JSONValue {
        .object([
            ("logged_at", .string(DateText.iso8601(logged.loggedAt))),
            ("log", .string(logged.log)),
            ("precertificate", .bool(logged.precertificate)),
            ("serial", .string(logged.serial)),
            ("not_before", .string(DateText.iso8601(logged.notBefore))),
            ("not_after", .string(DateText.iso8601(logged.notAfter))),
            ("issuer", .string(logged.issuer)),
            ("issuer_spki_sha256", logged.issuerSPKISHA256.isEmpty ? .null : .string(PinText.hex(logged.issuerSPKISHA256))),
            ("leaf_spki_sha256", .string(PinText.hex(logged.leafSPKISHA256))),
            ("survives", .array(logged.verdict.survives.map(JSONValue.string))),
            ("breaks", .array(logged.verdict.breaks.map(JSONValue.string))),
        ])
    }
}
