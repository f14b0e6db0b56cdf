import Foundation
import PinwatchCore
import PinwatchFleet

extension FuzzTarget {
    /// A Prometheus server's answer (`watch --prometheus`): whatever it
    /// holds, every text that reaches the screen is free of control bytes
    /// and bounded, and every row is a host that can be named.
    static func prometheusAnswer(_ bytes: [UInt8]) {
        switch PrometheusVector.parse(Data(bytes)) {
        case .failure(let problem):
            require(!containsControl(problem.description), "control byte in a query problem")
        case .success(let answer):
            require(answer.samples.allSatisfy { PrometheusVector.valueRange.contains($0.value) }, "a value out of range was kept")
            let fleet = FleetSnapshot(answer)
            require(fleet.hosts.count <= FleetSnapshot.maximumHosts, "\(fleet.hosts.count) rows")
            for host in fleet.hosts {
                require((1...65_535).contains(host.port), "port \(host.port) accepted")
                let texts = [host.host, host.reason, host.sni ?? "", host.address ?? "", host.vantage ?? ""] + host.levels.map(\.subject)
                for text in texts {
                    require(!containsControl(text), "control byte in a row: \(text.debugDescription)")
                    require(text.count <= PrometheusVector.maximumLabelLength, "a label of \(text.count) characters")
                }
                let report = host.report(now: Date(timeIntervalSince1970: 1_800_000_000))
                require(report.reason == host.reason, "the remote reason was replaced")
            }
        }
    }
}
