import Foundation

extension PrometheusExposition {
    /// The history store's own series, appended to a cycle's text by
    /// `serve` when history is on: a counter, so a failing disk shows as
    /// `increase(...) > 0` however the scrapes fall between cycles.
    public static func historyWrites(_ health: HistoryWriteHealth) -> String {
        var out = ExpositionBuffer(capacity: 256)
        let family = MetricFamily.of(.historyWriteErrors)
        out.family(family)
        out.sample(family.nameBytes, nil, nil, nil, Double(health.failedWrites))
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// `/probe`'s answer: the host's series as a render without a cycle,
    /// and blackbox_exporter's convention, as its users read it: healthy
    /// or not.
    public static func probeAnswer(_ report: HostReport, version: String, vantage: String?, deprecatedSeries: Bool = false) -> [UInt8] {
        var out = ExpositionBuffer(capacity: 0)
        out.append(
            PrometheusRenderer().render([report], cycle: nil, version: version, vantage: vantage, deprecatedSeries: deprecatedSeries))
        let family = MetricFamily.of(.probeSuccess)
        out.family(family)
        out.sample(family.nameBytes, nil, nil, nil, probeSuccess(report) ? 1 : 0)
        return out.bytes
    }
}
