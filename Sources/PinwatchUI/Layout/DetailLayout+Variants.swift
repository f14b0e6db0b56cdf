import PinwatchCore

extension DetailLayout {
    /// A host of several probes (`addresses: all`, `key_types:`): each
    /// address and key type with its status and its chain's digests, so a
    /// rolling rotation reads edge by edge. The chain below is the worst
    /// probe's.
    static func appendVariants(of report: HostReport, to lines: inout [StyledLine]) {
        guard let agreement = report.variantAgreement else { return }
        lines.append([])
        lines.append([
            Span(" probes: \(report.variants.count)", Style(.normal, bold: true)), Span("  \(agreement)", Style(.dim)),
        ])
        let labelWidth = min(40, report.variants.map { $0.variant.label.count }.max() ?? 0)
        for verdict in report.variants {
            let label = verdict.variant.label.isEmpty ? "(the name)" : verdict.variant.label
            var line: StyledLine = [
                Span("   " + label.padding(toLength: max(labelWidth, 10), withPad: " ", startingAt: 0) + "  "),
                Formatting.status(verdict.error == nil ? verdict.status : .error),
            ]
            if let error = verdict.error {
                line.append(Span("  " + error, Style(.error)))
            } else {
                // The first 12 hex digits of each certificate, leaf first:
                // enough to tell two chains apart at a glance.
                let digests = verdict.chainSHA256.map { String($0.prefix(12)) }.joined(separator: " › ")
                // Key types serve different chains by design: addresses
                // are compared within their key type.
                let sameKeyType = report.variants.filter { $0.variant.keyType == verdict.variant.keyType }
                let differs = verdict.variant.address != nil && verdict.chainSHA256 != VariantFold.commonChain(of: sameKeyType)
                let mark = differs ? "  (another chain)" : ""
                line.append(Span("  " + digests, Style(.dim)))
                if !mark.isEmpty { line.append(Span(mark, Style(.warn))) }
                if let since = report.history?.probeChainsSince[label] {
                    line.append(Span("  since \(DateText.readableUTC(since))", Style(.dim)))
                }
            }
            lines.append(line)
        }
    }
}
