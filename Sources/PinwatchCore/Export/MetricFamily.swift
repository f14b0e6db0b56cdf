import Foundation

/// One Prometheus metric family pinwatch publishes: its name, type, HELP,
/// when it is absent, and its scope with the writer of its samples. Every
/// family is one row of `MetricFamilyName.definition`
/// (MetricFamilyTable.swift); the renderer, `serve`'s other series, the
/// fleet reader and README's metrics table all follow that table.
package struct MetricFamily: Sendable {
    package enum Kind: String, Sendable {
        case gauge, counter
    }

    /// When a family, or some of its series, is not in an exposition.
    package enum Absence: Sendable, Equatable {
        /// Always there (one series per host, or the instance's own).
        case never
        /// Some hosts, or some levels of a chain, have no series: HELP says which.
        case someHosts
        /// Only with a completed cycle: absent from `/probe`.
        case withoutCycle
        /// Only when the configured interval is known: `serve`.
        case withoutInterval
        /// Only from `serve` with the history store on.
        case withoutHistory
        /// Only on `serve`'s `/metrics`, read at each scrape; a figure that
        /// could not be read is left out.
        case outsideScrapes
        /// Only in `/probe`'s answers.
        case outsideProbe
        /// Only from `serve` with `report_uri:`.
        case withoutReportURI
        /// Only with `ct: {logs:}` (`serve`, `snapshot --format prometheus`).
        case withoutCT
        /// Deprecated, removed in the next release: only with
        /// `deprecated_series: true`, for rules not yet moved to the
        /// families that replace it.
        case withoutDeprecatedSeries
    }

    /// Who writes a family's samples, and from what.
    enum Scope: Sendable {
        /// Series per host, written in the renderer's one pass over the
        /// reports into a buffer of the family's own.
        case host(HostWriter)
        /// Series about the whole render (counts, the cycle, the build),
        /// written after the pass.
        case exposition(ExpositionWriter)
        /// `serve`'s history store: `HistoryExposition` and
        /// `ChainChangeCounter` write the samples from the state they keep.
        case history
        /// The process itself, read at each scrape (`PrometheusExposition.process`).
        case scrape(@Sendable (ProcessFigures) -> Double?)
        /// `/probe`'s own verdict (`PrometheusExposition.probeAnswer`).
        case probe
        /// `report_uri:`'s endpoint: `ClientReportCounts` writes the samples
        /// it counts as reports arrive, at each scrape.
        case clientReports
    }

    /// `(buffer, name, report, host)`: appends one host's samples.
    typealias HostWriter = @Sendable (inout ExpositionBuffer, [UInt8], HostReport, HostLine) -> Void
    /// `(buffer, name, render)`: appends the family's samples.
    typealias ExpositionWriter = @Sendable (inout ExpositionBuffer, [UInt8], RenderFacts) -> Void

    package let name: MetricFamilyName
    package let type: Kind
    package let help: String
    package let absence: Absence
    let scope: Scope
    /// The name's bytes and the `# HELP`/`# TYPE` lines, made once.
    let nameBytes: [UInt8]
    let header: [UInt8]

    init(_ name: MetricFamilyName, _ type: Kind, help: String, absence: Absence, _ scope: Scope) {
        self.name = name
        self.type = type
        self.help = help
        self.absence = absence
        self.scope = scope
        nameBytes = Array(name.rawValue.utf8)
        header = Array("# HELP \(name.rawValue) \(help)\n# TYPE \(name.rawValue) \(type.rawValue)\n".utf8)
    }

    /// Every family, in the order an exposition lists them.
    package static let all: [MetricFamily] = MetricFamilyName.allCases.map(\.definition)

    package static func of(_ name: MetricFamilyName) -> MetricFamily {
        // allCases and `all` are in the same order.
        all[MetricFamilyName.allCases.firstIndex(of: name) ?? 0]
    }

    /// Whether a render with this cycle carries the family at all.
    func isPresent(cycle: PrometheusExposition.Cycle?, deprecatedSeries: Bool) -> Bool {
        switch absence {
        case .withoutCycle: cycle != nil
        case .withoutInterval: cycle?.interval != nil
        case .withoutCT: cycle?.ctLogs != nil
        case .withoutDeprecatedSeries: deprecatedSeries
        default: true
        }
    }
}

/// What every host family shares for one host: its labels, made once, and
/// the pieces made once per render.
struct HostLine {
    /// `host="…",port="…"` and the rest (`PrometheusExposition.hostLabels`).
    let labels: [UInt8]
    /// The name of its chain's CA levels (`MetricFamilyName.caChain`),
    /// which `pinwatch_chain_info` writes and `pinwatch_ca_level_info` is
    /// keyed by: hashed once per host.
    let caChain: String
    let render: RenderShared
}

/// Pieces most of the text is made of, computed once per render.
final class RenderShared: Sendable {
    /// `,status="ok"} ` and the like, in `HostStatus.allCases` order.
    let statusTails: [[UInt8]]
    /// The same for `HostSeverity.worstFirst`.
    let severityTails: [[UInt8]]
    /// Every `labels:` name of any host (`PrometheusExposition.ownerLabelNames`).
    let ownerLabelNames: [String]

    init(_ reports: [HostReport]) {
        statusTails = HostStatus.allCases.map { Array(",status=\"\($0.rawValue)\"} ".utf8) }
        severityTails = HostSeverity.worstFirst.map { Array(",severity=\"\($0.rawValue)\"} ".utf8) }
        ownerLabelNames = PrometheusExposition.ownerLabelNames(reports)
    }
}

/// What the families about the whole render read.
struct RenderFacts {
    let reports: [HostReport]
    /// Each report's `HostLine.caChain`, in `reports` order.
    let caChains: [String]
    let cycle: PrometheusExposition.Cycle?
    let version: String
    let vantage: String?
    /// Failed probes of the reports, by kind.
    let errorCounts: [ProbeErrorKind: Int]
}
