/// A host of several probes in JSON v1 (additive): `addresses` with
/// `addresses: all`, `key_types` with `key_types:`, and how they agree.
enum VariantsJSON {
    static func write(_ report: HostReport, to fields: inout JSONObjectWriter) {
        guard let agreement = report.variantAgreement else { return }
        fields.field("agreement", agreement)
        if report.config.probesEveryAddress {
            let byAddress = worstOfEach(report.variants) { $0.variant.address ?? "" }
            fields.field("addresses", JSONValue.array(byAddress.map { entry("address", .optional($0.variant.address), $0) }))
            fields.field("addresses_not_probed", JSONValue.array(report.addressesNotProbed.map { .string($0) }))
        }
        if !report.config.keyTypes.isEmpty {
            let byKeyType = worstOfEach(report.variants) { $0.variant.keyType?.rawValue ?? "" }
            fields.field(
                "key_types", JSONValue.array(byKeyType.map { entry("key_type", .optional($0.variant.keyType?.rawValue), $0) }))
        }
    }

    /// One entry per address (or key type): its worst probe, in probe order.
    static func worstOfEach(_ verdicts: [VariantVerdict], by key: (VariantVerdict) -> String) -> [VariantVerdict] {
        var order: [String] = []
        var worst: [String: VariantVerdict] = [:]
        for verdict in verdicts {
            let name = key(verdict)
            guard let seen = worst[name] else {
                order.append(name)
                worst[name] = verdict
                continue
            }
            if verdict.severity.rank > seen.severity.rank { worst[name] = verdict }
        }
        return order.compactMap { worst[$0] }
    }

    private static func entry(_ name: String, _ value: JSONValue, _ verdict: VariantVerdict) -> JSONValue {
        .object([
            (name, value),
            ("status", .string(verdict.status.rawValue)),
            ("severity", .string(verdict.severity.rawValue)),
            ("chain_sha256", .array(verdict.chainSHA256.map { .string($0) })),
            ("error", .optional(verdict.error)),
        ])
    }
}
