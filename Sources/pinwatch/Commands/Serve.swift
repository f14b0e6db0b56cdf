import ArgumentParser
import Dispatch
import Foundation
import Logging
import PinwatchCore
import PinwatchService

extension Pinwatch {
    /// The Prometheus exporter.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Poll on the interval and serve the results to Prometheus.",
            discussion: """
                GET /metrics answers with the last completed cycle (a scrape never probes); \
                GET /probe?target=HOST[:PORT]&pinset=NAME probes one target now, blackbox-exporter style; \
                GET /-/healthy and /-/ready (ready after the first cycle). Logs one logfmt line per event \
                on stderr. SIGHUP reloads the configuration (an invalid one is refused and the old one \
                keeps running); SIGTERM stops at once. Hooks (hooks: in the config) run on every \
                severity transition.
                """
        )

        @OptionGroup var options: ConfigOptions

        @Option(help: ArgumentHelp("Address to listen on (default: listen: in the config, else 127.0.0.1:9715).", valueName: "host:port"))
        var listen: String?

        func validate() throws {
            if let listen, let problem = ListenAddress.problem(listen) {
                throw ValidationError("--listen: \(problem)")
            }
        }

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                LoggingSystem.bootstrap { LogfmtLogHandler(label: $0) }
                let logger = Logger(label: "pinwatch")
                let exporter = Exporter(
                    config: config, environment: ProcessInfo.processInfo.environment, version: Pinwatch.configuration.version,
                    logger: logger)
                let address = listen ?? config.listen ?? ListenAddress.defaultValue
                let server: ExporterHTTPServer
                do {
                    server = try ExporterHTTPServer(exporter: exporter, listen: address) { logger.warning("http: \($0)") }
                } catch {
                    throw UserFacingError(message: "\(error)")
                }
                Self.watchSignals(exporter: exporter, options: options, logger: logger)
                exporter.startPolling()
                Task {
                    do {
                        try await server.run()
                    } catch {
                        logger.critical("cannot serve", metadata: ["address": "\(address)", "error": "\(error)"])
                        Output.standardError("pinwatch: cannot listen on \(address): \(error)")
                        _exit(2)
                    }
                }
                Task {
                    try? await server.waitUntilListening()
                    logger.info(
                        "listening",
                        metadata: [
                            "address": "\(address)", "hosts": "\(config.hosts.count)",
                            "interval": "\(ConfigDuration.describe(config.interval))",
                        ])
                }
                dispatchMain()
            }
        }

        /// SIGTERM and SIGINT stop at once (nothing is left to save);
        /// SIGHUP reloads.
        private static func watchSignals(exporter: Exporter, options: ConfigOptions, logger: Logger) {
            for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
                source.setEventHandler {
                    if signalNumber == SIGHUP {
                        do {
                            exporter.reload(try options.load())
                        } catch {
                            logger.error("reload refused: the old configuration keeps running", metadata: ["problems": "\(error)"])
                        }
                        return
                    }
                    logger.info("stopping", metadata: ["signal": "\(signalNumber == SIGTERM ? "TERM" : "INT")"])
                    _exit(0)
                }
                source.resume()
                SignalSources.keep(source)
            }
        }
    }

    /// Checks a configuration without probing anything.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the configuration and exit: 0 when valid, 2 with one line per problem.")

        @OptionGroup var options: ConfigOptions

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                let name = config.path ?? "configuration"
                let hooks = config.hooks.isEmpty ? "" : ", \(config.hooks.count) hook\(config.hooks.count == 1 ? "" : "s")"
                Output.standardOutput("\(name): valid, \(config.hosts.count) host\(config.hosts.count == 1 ? "" : "s")\(hooks)\n")
            }
        }
    }
}

/// Dispatch sources that must live as long as the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func keep(_ source: DispatchSourceSignal) {
        sources.append(source)
    }
}
