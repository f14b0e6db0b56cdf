import Foundation

/// One pin-failure report as pinwatch keeps it: matched to a configured
/// host, with the chain the client saw summarised. Every text is escaped
/// to printable ASCII when the record is made (`FileText.comment`), so
/// the store, the logs, the terminal and the files pinwatch writes never
/// hold what the client sent as it sent it.
public struct ClientReportRecord: Hashable, Sendable {
    /// When pinwatch received it (the client's own time is `reportedAt`).
    public var receivedAt: Date
    /// The configured host and port it was matched to.
    public var host: String
    public var port: Int
    /// The release named in the report URL (`client=`), else the format.
    public var client: String
    public var format: String
    public var app: String?
    public var reportedAt: String?
    public var outcome: String?
    /// One line per certificate the client saw, leaf first: `subject ←
    /// issuer`; or the served keys' pins when the client sent no chain.
    public var chain: [String]

    public init(
        receivedAt: Date, host: String, port: Int, client: String, format: String, app: String? = nil, reportedAt: String? = nil,
        outcome: String? = nil, chain: [String]
    ) {
        self.receivedAt = receivedAt
        self.host = host
        self.port = port
        self.client = FileText.comment(client)
        self.format = FileText.comment(format)
        self.app = app.map(FileText.comment)
        self.reportedAt = reportedAt.map(FileText.comment)
        self.outcome = outcome.map(FileText.comment)
        self.chain = chain.map(FileText.comment)
    }

    /// `CN=leaf <- CN=Corp CA | CN=Corp CA <- CN=Corp Root`: what the
    /// alert's reason and `history` show of the chain.
    public var chainSummary: String {
        chain.isEmpty ? "no chain sent" : chain.joined(separator: " | ")
    }

    /// A certificate as the summary shows it.
    public static func certificateLine(subject: String, issuer: String) -> String {
        "\(subject) <- \(issuer)"
    }
}

/// What the store holds of a host's recent reports: the alert's facts.
public struct ClientReportFacts: Hashable, Sendable {
    /// Reports received within `window` of the report's time.
    public var count: Int
    public var latest: ClientReportRecord
    /// The releases (or formats) they came from, sorted.
    public var clients: [String]

    /// A report keeps `client_reports` raised for a day: clients report
    /// when they connect, and a network that serves them another chain
    /// may reach them only now and then.
    public static let window: TimeInterval = 86_400

    public init(count: Int, latest: ClientReportRecord, clients: [String]) {
        self.count = count
        self.latest = latest
        self.clients = clients
    }

    /// `3 client reports in 24 h (ios-7.1, trustkit); the latest saw: …`
    public var sentence: String {
        let reports = count == 1 ? "1 client report" : "\(count) client reports"
        let latestText = latest.outcome.map { " (\($0))" } ?? ""
        return "\(reports) in 24 h from \(clients.joined(separator: ", ")); the latest\(latestText) saw: \(latest.chainSummary)"
    }
}
