import Foundation

/// What the running process uses, as the standard `process_*` series every
/// Prometheus client library exports: dashboards and alerts written for
/// other exporters (memory growth, descriptors near the limit) work on
/// `serve` unchanged. Read by the caller (Core reads no files); a figure
/// that could not be read is left out rather than exported as 0.
public struct ProcessFigures: Sendable, Equatable {
    public var residentMemoryBytes: Int?
    public var openDescriptors: Int?
    public var maximumDescriptors: Int?
    /// Unix time.
    public var startTime: Double?
    /// User and system time together.
    public var cpuSeconds: Double?

    public init(
        residentMemoryBytes: Int? = nil, openDescriptors: Int? = nil, maximumDescriptors: Int? = nil, startTime: Double? = nil,
        cpuSeconds: Double? = nil
    ) {
        self.residentMemoryBytes = residentMemoryBytes
        self.openDescriptors = openDescriptors
        self.maximumDescriptors = maximumDescriptors
        self.startTime = startTime
        self.cpuSeconds = cpuSeconds
    }
}

extension PrometheusExposition {
    /// The `process_*` families of the table, with the names, types and
    /// help texts of the Prometheus client libraries.
    public static func process(_ figures: ProcessFigures) -> String {
        var text = ""
        for family in MetricFamily.all {
            guard case .scrape(let read) = family.scope, let value = read(figures) else { continue }
            let number = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
            text += String(decoding: family.header, as: UTF8.self) + "\(family.name.rawValue) \(number)\n"
        }
        return text
    }
}
