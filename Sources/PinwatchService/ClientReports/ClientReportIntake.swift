import Foundation
import Logging
import PinwatchCore
import PinwatchProbe

/// `report_uri:`'s endpoint, without the HTTP: each post is checked (rate
/// per source address, token, size, format, a configured host), its chain
/// summarised through the probe's certificate reader, stored, counted and
/// logged. The HTTP server asks it once a head is in (`admit`) and once
/// the body is (`receive`). Thread-safe: one lock over the counts, the
/// rate table and the hosts.
package final class ClientReportIntake: @unchecked Sendable {
    /// What the server answers: a status and one line saying why.
    package struct Answer: Sendable {
        package var status: Int
        package var text: String
        package var refusal: ClientReportRefusal?

        init(_ status: Int, _ text: String, refusal: ClientReportRefusal? = nil) {
            self.status = status
            self.text = text + "\n"
            self.refusal = refusal
        }
    }

    /// A report of a few PEM certificates fits several times over.
    package static let maximumBodyBytes = 64 * 1024

    package let path: String
    private let token: String
    private let store: ((ClientReportRecord) throws -> Void)?
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private let lock = NSLock()
    private var counts = ClientReportCounts()
    private var rate: SourceRateLimit
    private var hosts: [(host: String, port: Int)] = []
    private var releases: Set<String> = []
    private var vantage: String?

    /// `store` nil: history is off, and reports are refused (503) rather
    /// than counted and forgotten.
    package init(
        path: String, token: String, store: ((ClientReportRecord) throws -> Void)?, logger: Logger,
        rate: SourceRateLimit = SourceRateLimit(), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.path = path
        self.token = token
        self.store = store
        self.logger = logger
        self.rate = rate
        self.clock = clock
    }

    /// The hosts and releases reports may name: the running configuration's.
    package func configure(_ config: Config) {
        let hosts = config.hosts.map { (host: $0.host.lowercased(), port: $0.port) }
        let releases = Set(config.clients.map(\.name))
        lock.lock()
        self.hosts = hosts
        self.releases = releases
        vantage = config.vantage
        lock.unlock()
    }

    /// Both counter families, for `/metrics` at each scrape.
    package func exposition() -> String {
        lock.lock()
        defer { lock.unlock() }
        return counts.exposition(vantage: vantage)
    }

    /// Once the head is in: a refusal answers before any body is read.
    /// `declaredLength` is the head's Content-Length, when it has one.
    package func admit(query: String, source: String, declaredLength: Int?) -> Answer? {
        lock.lock()
        let admitted = rate.admit(source, now: clock())
        lock.unlock()
        guard admitted else {
            return refuse(.rate, Answer(429, "too many reports from this address; slow down", refusal: .rate), source: source)
        }
        let given = ProbeQuery.items(fromQueryString: query).first { $0.name == "token" }?.value
        guard let given, !given.isEmpty else {
            return refuse(.token, Answer(401, "no token: post to \(path)?token=TOKEN", refusal: .token), source: source)
        }
        guard ReportURISetting.tokenMatches(given, token) else {
            return refuse(.token, Answer(403, "wrong token", refusal: .token), source: source)
        }
        if let declaredLength, declaredLength > Self.maximumBodyBytes {
            return refuse(.size, tooLarge, source: source)
        }
        return nil
    }

    /// The answer to a body past the bound, read or declared.
    package var tooLarge: Answer {
        Answer(413, "report larger than \(Self.maximumBodyBytes / 1024) KiB", refusal: .size)
    }

    /// Counts a refusal the server decided itself (a body past the bound).
    package func refused(_ answer: Answer, source: String) {
        if let reason = answer.refusal { _ = refuse(reason, answer, source: source) }
    }

    /// Once the whole body is in (at most `maximumBodyBytes`), after `admit`.
    package func receive(body: Data, query: String, source: String) -> Answer {
        let report: PinFailureReport
        switch PinFailureReport.parse(body) {
        case .failure(let problem):
            return refuse(.invalid, Answer(400, problem.description, refusal: .invalid), source: source)
        case .success(let parsed):
            report = parsed
        }
        let named = ProbeQuery.items(fromQueryString: query).first { $0.name == "client" }?.value
        lock.lock()
        let hosts = self.hosts
        let releases = self.releases
        lock.unlock()
        if let named, !releases.contains(named) {
            return refuse(
                .invalid,
                Answer(422, "client=\(EchoedInput.quoted(named)) names no release of clients: in the configuration", refusal: .invalid),
                source: source)
        }
        guard let target = Self.match(report, among: hosts) else {
            return refuse(
                .invalid,
                Answer(
                    422, "\(EchoedInput.quoted(report.hostname))\(report.port.map { ":\($0)" } ?? "") is not a host pinwatch watches",
                    refusal: .invalid), source: source)
        }
        let record = ClientReportRecord(
            receivedAt: clock(), host: target.host, port: target.port, client: named ?? report.format.rawValue,
            format: report.format.rawValue, app: report.app, reportedAt: report.dateTime, outcome: report.outcome,
            chain: Self.chainLines(report))
        guard let store else {
            return refuse(.storage, Answer(503, "history is off (state: off): reports cannot be kept", refusal: .storage), source: source)
        }
        do {
            try store(record)
        } catch {
            logger.error("client report not stored", metadata: ["error": "\(error)"])
            return refuse(.storage, Answer(503, "the report could not be stored; try again later", refusal: .storage), source: source)
        }
        lock.lock()
        counts.count(record)
        lock.unlock()
        // Every text of the record is printable ASCII already.
        logger.notice(
            "client report",
            metadata: [
                "host": "\(record.host)", "port": "\(record.port)", "client": "\(record.client)", "format": "\(record.format)",
                "chain": "\(record.chainSummary)", "address": "\(source)",
            ])
        return Answer(202, "report stored")
    }

    private func refuse(_ reason: ClientReportRefusal, _ answer: Answer, source: String) -> Answer {
        lock.lock()
        counts.refuse(reason)
        let total = counts.refusals(reason)
        lock.unlock()
        // A flood would log a line per post: the first and every 100th.
        if total == 1 || total % 100 == 0 {
            logger.warning(
                "client report refused",
                metadata: ["reason": "\(reason.rawValue)", "status": "\(answer.status)", "address": "\(source)", "refused": "\(total)"])
        }
        return answer
    }

    /// The configured host the report is about: its hostname (or the
    /// pinned domain it fell under) and port; a report without a port
    /// (react-native-ssl-manager's) matches the host's first entry.
    static func match(_ report: PinFailureReport, among hosts: [(host: String, port: Int)]) -> (host: String, port: Int)? {
        for name in [report.hostname, report.notedHostname?.lowercased()].compactMap({ $0 }) {
            if let found = hosts.first(where: { $0.host == name && (report.port == nil || $0.port == report.port) }) {
                return found
            }
        }
        return nil
    }

    /// `subject <- issuer` per certificate the client saw; a block that is
    /// not a certificate says so instead of failing the report.
    static func chainLines(_ report: PinFailureReport) -> [String] {
        if report.chainPEM.isEmpty { return report.servedPins.map { "served key \($0)" } }
        return report.chainPEM.map { pem in
            guard let certificate = (try? X509Certificate.certificates(pem: pem))?.first else {
                return "(not a PEM certificate)"
            }
            let facts = certificate.facts
            return ClientReportRecord.certificateLine(subject: facts.subject, issuer: facts.issuer)
        }
    }
}
