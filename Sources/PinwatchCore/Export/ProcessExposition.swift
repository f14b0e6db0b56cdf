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
    /// The `process_*` families, with the names, types and help texts of
    /// the Prometheus client libraries.
    public static func process(_ figures: ProcessFigures) -> String {
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: Double?) {
            guard let value else { return }
            let number = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(number)\n"
        }
        family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", figures.cpuSeconds)
        family("process_open_fds", "gauge", "Number of open file descriptors.", figures.openDescriptors.map(Double.init))
        family("process_max_fds", "gauge", "Maximum number of open file descriptors.", figures.maximumDescriptors.map(Double.init))
        family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", figures.residentMemoryBytes.map(Double.init))
        family(
            "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", figures.startTime)
        return text
    }
}
