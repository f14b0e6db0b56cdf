import Foundation
import PinwatchCore
import PinwatchTerminal
import PinwatchUI

// Times building one dashboard Frame for N hosts and painting it with the
// real ncurses painter: the cost of one redraw, which the dashboard pays on
// every result and every clock tick.
//
//   pinwatch-frame-bench ROWS [--paint] [--churn] [--iterations K] [--out FILE]
//
// Without --paint only the Frame is built (no terminal needed). With
// --paint it must run in a terminal (Benchmarks/run.sh uses tmux) and
// writes its figures to --out, since the screen belongs to curses then.

struct Options {
    var rows = 1000
    var paint = false
    var iterations = 50
    var out: String?
    /// Record one fresh result before each frame, as during a cycle, so
    /// the rows, counts and banner are worked out again every time.
    var churn = false

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--paint": paint = true
            case "--iterations": iterations = iterator.next().flatMap(Int.init) ?? iterations
            case "--out": out = iterator.next()
            case "--churn": churn = true
            default: rows = Int(argument) ?? rows
            }
        }
    }
}

func syntheticState(hosts count: Int, now: Date) -> DashboardState {
    let statuses: [HostStatus] = [.ok, .ok, .ok, .leafOnly, .blocked, .error, .unpinned]
    let hosts = (0..<count).map { HostConfig(host: "host\($0).bench.example", port: 443) }
    var state = DashboardState(configPath: "bench.yaml", hosts: hosts)
    state.beginCycle(total: count, at: now)
    for (index, host) in hosts.enumerated() {
        let status = statuses[index % statuses.count]
        var levels: [LevelReport] = []
        if status != .error {
            for level in 0..<3 {
                let digest = (0..<32).map { UInt8(truncatingIfNeeded: $0 &+ index &+ level) }
                let facts = CertificateFacts(
                    subject: "CN=\(host.host)", issuer: "CN=Bench Issuing CA", notBefore: now.addingTimeInterval(-86400),
                    notAfter: now.addingTimeInterval(86400 * Double(30 + index % 60)), keyDescription: "ECDSA P-256",
                    spkiSHA256: digest, keySHA256: digest, certSHA256: digest)
                let role = ChainRole.role(ofLevel: level, isSelfSigned: level == 2, isTrustAnchor: level == 2)
                let matches =
                    status == .ok && role == .root ? [PinMatch(tier: .ca, pin: Pin(kind: .spki, digest: digest, text: "sha256/x"))] : []
                levels.append(
                    LevelReport(
                        level: level, role: role, certificate: ChainCertificate(facts: facts, fromServer: role != .root), matches: matches,
                        daysLeft: 30 + index % 60))
            }
        }
        let result =
            status == .error
            ? ProbeResult(failure: ProbeFailure(kind: .timeout, message: "handshake timed out"), elapsed: 5)
            : ProbeResult(address: "127.0.0.1", chain: levels.map(\.certificate), sentCount: 2, trusted: status != .blocked, elapsed: 0.01)
        let report = HostReport(
            config: host, result: result, status: status, matchedTiers: status == .ok ? [.ca] : status == .leafOnly ? [.leaf] : [],
            alerts: status == .leafOnly ? [.leafOnly] : [], levels: levels, leafDaysLeft: levels.isEmpty ? nil : 30 + index % 60,
            proxy: ProxyReport())
        state.record(report, forHost: index, at: now)
    }
    state.finishCycle(at: now)
    return state
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let now = Date()
var state = syntheticState(hosts: options.rows, now: now)
var samples: [Double] = []
var screen: TerminalScreen?
if options.paint {
    do {
        screen = try TerminalScreen()
    } catch {
        FileHandle.standardError.write(Data("frame-bench: \(error)\n".utf8))
        exit(2)
    }
}
let theme = ThemeLoader.builtInDefault
for iteration in 0..<(options.iterations + 3) {
    let size = screen?.size ?? (rows: 50, columns: 160)
    let started = DispatchTime.now().uptimeNanoseconds
    // Each iteration moves the selection so the painter has real work.
    _ = state.handle(iteration % 2 == 0 ? .down : .up)
    if options.churn, let report = state.reports[iteration % options.rows] {
        state.record(report, forHost: iteration % options.rows, at: now)
    }
    let frame = DashboardLayout.paint(&state, width: size.columns, height: size.rows, now: now.addingTimeInterval(Double(iteration)))
    screen?.paint(frame, theme: theme)
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
    if iteration >= 3 { samples.append(elapsed) }  // the first frames warm caches
}
screen?.restore()
let line = String(
    format: "rows=%d paint=%@ churn=%@ iterations=%d median_ms=%.3f max_ms=%.3f\n",
    options.rows, options.paint ? "yes" : "no", options.churn ? "yes" : "no", samples.count, median(samples), samples.max() ?? 0)
if let out = options.out {
    _ = FileManager.default.createFile(atPath: out, contents: Data(line.utf8))
} else {
    print(line, terminator: "")
}
