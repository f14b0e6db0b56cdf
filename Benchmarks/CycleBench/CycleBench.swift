import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import PinwatchSystem

/// `pinwatch-cycle-bench CONFIG [CYCLES]`: what `watch` and `serve` pay per
/// cycle. One poller, as they keep one, runs CYCLES (default 5) cycles over
/// the configuration's hosts; the first verifies every chain, later ones
/// find the chains they verified before in the cache. Prints one TSV line
/// per cycle: cycle, wall seconds, CPU µs per host (user + system, this
/// process), cache hits and misses so far, and chains anchored at an
/// intermediate verified before (hits + misses + anchored: every handshake
/// that got a chain).
@main
enum CycleBench {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst().map { $0 }
        guard let path = arguments.first else {
            FileHandle.standardError.write(Data("usage: pinwatch-cycle-bench CONFIG [CYCLES]\n".utf8))
            exit(2)
        }
        let cycles = arguments.dropFirst().first.flatMap(Int.init) ?? 5
        let config = try ConfigFile.load(explicit: path)
        let poller = HostPoller(config: config)
        let hosts = max(1, config.hosts.count)
        print("cycle\twall_s\tcpu_us_per_host\tcache_hits\tcache_misses\tcache_anchored")
        for cycle in 1...cycles {
            let startCPU = ProcessCPUTime.seconds()
            let start = Date()
            let reports = poller.runCycle()
            let wall = Date().timeIntervalSince(start)
            let cpu = ProcessCPUTime.seconds() - startCPU
            let fine = reports.filter { $0.status == .ok }.count
            guard fine == reports.count else {
                FileHandle.standardError.write(Data("cycle \(cycle): \(reports.count - fine) hosts not ok\n".utf8))
                exit(1)
            }
            let counts = poller.verifiedChainCounts
            print(
                String(
                    format: "%d\t%.3f\t%.0f\t%d\t%d\t%d", cycle, wall, cpu * 1e6 / Double(hosts), counts.hits, counts.misses,
                    counts.anchored))
        }
    }
}
