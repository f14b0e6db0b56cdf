import ArgumentParser
import Dispatch
import Foundation
import Glibc
import Logging
import PinwatchCatalogue
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor
import PinwatchProbe
import PinwatchService
import PinwatchSystem

/// `pinwatch serve`: the Prometheus exporter. `pinwatch serve …` runs this
/// executable with the same arguments; it also runs on its own.
@main
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinwatch serve",
        abstract: "Poll on the interval and serve the results to Prometheus.",
        discussion: """
            GET /metrics answers with the last completed cycle (a scrape never probes); \
            GET /probe?target=HOST[:PORT]&pinset=NAME probes one target now, blackbox-exporter style (a configured host, unless probe_targets: in the config allows more); \
            GET /-/healthy and /-/ready (ready after the first cycle). Logs one logfmt line per event \
            on stderr. SIGHUP reloads the configuration (an invalid one is refused and the old one \
            keeps running); SIGTERM stops at once. Hooks (hooks: in the config) run on every \
            severity transition. Exit codes: 2 for a usage or configuration error or an address \
            that cannot be used.
            """,
        version: PinwatchVersion.withCommit
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("Configuration file.", valueName: "path"))
    var config: String?

    @Option(help: ArgumentHelp("Watch only shard I of N (0 ≤ I < N); overrides shard: in the config.", valueName: "I/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Address to listen on (default: listen: in the config, else 127.0.0.1:9715).", valueName: "host:port"))
    var listen: String?

    @Option(
        help: ArgumentHelp(
            "History store file, or off (default: state: in the config, else $XDG_STATE_HOME/pinwatch/state.sqlite).",
            valueName: "path|off"))
    var state: String?

    @Option(
        help: ArgumentHelp(
            "HTTP connections kept open at once, half of them at most from one address; more wait to be accepted (default: a quarter of the open-file limit, less what probes need).",
            valueName: "n"))
    var maxConnections: Int?

    func validate() throws {
        if let maxConnections, maxConnections < 1 {
            throw ValidationError("--max-connections must be at least 1")
        }
        if let listen, let problem = ListenAddress.problem(listen) {
            throw ValidationError("--listen: \(problem)")
        }
        if let shard, let problem = Shard.problem(shard) {
            throw ValidationError("--shard \(problem)")
        }
    }

    /// The configuration's silences, and the dashboard's acknowledgements
    /// in the store, read again each cycle through a connection of their own.
    static func acknowledgements(in history: HistoryStore?) -> AcknowledgementLedger {
        guard let path = history?.path else { return AcknowledgementLedger() }
        return AcknowledgementLedger(readStored: { try? AcknowledgementTable.read(path: path) })
    }

    func run() throws {
        // The main queue's wake-up eventfd is made on its first use, and
        // dispatchMain traps (SIGILL) if it cannot be: made now, while
        // descriptors are plenty, not when cycles and hooks hold them all.
        DispatchQueue.main.async {}
        let loaded: Config
        do {
            loaded = try load()
        } catch {
            Self.fail(error.lines)
        }
        let history: HistoryStore?
        do {
            history = try HistoryStore.open(loaded.state, override: state, historyDays: loaded.historyDays, catalogue: loaded.catalogue)
        } catch {
            Self.fail([error.description])
        }
        LoggingSystem.bootstrap { LogfmtLogHandler(label: $0) }
        let logger = Logger(label: "pinwatch")
        let intake: ClientReportIntake?
        switch Self.clientReportIntake(loaded.reportURI, history: history, logger: logger) {
        case .failure(let problem): Self.fail([problem.description])
        case .success(let made): intake = made
        }
        let ct: CTFollowing?
        do {
            ct = try CTFollowing(config: loaded, saved: history?.ctState)
        } catch {
            Self.fail(["\(error)"])
        }
        let exporter = Exporter(
            config: loaded, environment: ProcessEnvironment.current, version: PinwatchVersion.current, logger: logger,
            history: history, readConfig: { [self] in try load() }, acknowledgements: Self.acknowledgements(in: history),
            clientReports: intake, ct: ct)
        let address = listen ?? loaded.listen ?? ListenAddress.defaultValue
        let connections =
            maxConnections
            ?? ConnectionLimit.derived(descriptorLimit: ConnectionLimit.descriptorLimit, probeConcurrency: loaded.concurrency)
        do {
            try ExporterHTTPServer(exporter: exporter).start(listen: address, maximumConnections: connections, logger: logger)
        } catch {
            Self.fail([ListenFailure.describe(error, address: address)])
        }
        watchSignals(exporter: exporter, logger: logger)
        for (flag, key, given, configured) in overrides(loaded) {
            logger.notice(
                "\(flag) overrides \(key): in the configuration, at start and after every reload",
                metadata: [String(flag.dropFirst(2)): "\(given)", "configured": "\(configured)"])
        }
        exporter.startPolling()
        logger.info(
            "listening",
            metadata: [
                "address": "\(address)", "hosts": "\(loaded.hosts.count)", "max_connections": "\(connections)",
                "interval": "\(ConfigDuration.describe(loaded.interval))",
            ])
        dispatchMain()
    }

    /// `report_uri:`'s endpoint with its token read now (a later change of
    /// the token or the path applies at the next start), storing into the
    /// history store; nil without `report_uri:`.
    static func clientReportIntake(
        _ setting: ReportURISetting?, history: HistoryStore?, logger: Logger
    ) -> Result<ClientReportIntake?, ReportURIProblem> {
        guard let setting else { return .success(nil) }
        guard let path = history?.path, path != HistoryStore.inMemoryPath else {
            return .failure(
                ReportURIProblem(
                    "report_uri: reports are kept in the history store, and state is off: set state: to a file, or remove report_uri"))
        }
        let text: String
        let source: String
        switch setting.token {
        case .file(let file):
            source = file
            do {
                text = try RegularFile.readText(file, limit: 4_096)
            } catch {
                return .failure(ReportURIProblem("report_uri.token_file: \(error.description)"))
            }
        case .environment(let name):
            source = "$" + name
            guard let value = ProcessEnvironment.current[name] else {
                return .failure(ReportURIProblem("report_uri.token_env: \(name) is not set in serve's environment"))
            }
            text = value
        }
        switch ReportURISetting.token(from: text, source: source) {
        case .failure(let problem): return .failure(problem)
        case .success(let token):
            let store: (ClientReportRecord) throws -> Void = { record in try ClientReportTable.store(record, path: path) }
            return .success(ClientReportIntake(path: setting.path, token: token, store: store, logger: logger))
        }
    }

    /// A flag that replaces a key the file sets to something else: said at
    /// start, since an edit of that key would otherwise change nothing
    /// without a word.
    private func overrides(_ config: Config) -> [(flag: String, key: String, given: String, configured: String)] {
        var found: [(flag: String, key: String, given: String, configured: String)] = []
        if let listen, let configured = config.listen, configured != listen {
            found.append(("--listen", "listen", listen, configured))
        }
        if let state, config.state != .automatic {
            let given = StateSetting.parse(state) { $0 }
            if given != config.state {
                found.append(("--state", "state", state, Self.describe(config.state)))
            }
        }
        return found
    }

    private static func describe(_ setting: StateSetting) -> String {
        switch setting {
        case .automatic: return "automatic"
        case .off: return "off"
        case .file(let path): return path
        }
    }

    private func load() throws(ConfigFile.Failure) -> Config {
        try ConfigFile.load(explicit: config, shard: shard.flatMap(Shard.init(parsing:)), catalogue: CatalogueLoader.builder)
    }

    private static func fail(_ lines: [String]) -> Never {
        let text = lines.map { "pinwatch: \($0)\n" }.joined()
        _ = Array(text.utf8).withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        Glibc.exit(2)
    }

    /// SIGTERM and SIGINT stop at once (nothing is left to save); SIGHUP
    /// reloads.
    private func watchSignals(exporter: Exporter, logger: Logger) {
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler {
                if signalNumber == SIGHUP { return exporter.requestReload() }
                let hooks = exporter.stopHooks()
                logger.info(
                    "stopping",
                    metadata: [
                        "signal": "\(signalNumber == SIGTERM ? "TERM" : "INT")", "hooks_killed": "\(hooks.running)",
                        "hooks_dropped": "\(hooks.waiting)",
                    ])
                _exit(0)
            }
            source.resume()
            SignalSources.keep(source)
        }
    }
}

/// Dispatch sources that must live as long as the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [any DispatchSourceProtocol] = []

    static func keep(_ source: any DispatchSourceProtocol) {
        sources.append(source)
    }
}
