import Foundation
import PinwatchCore
import PinwatchProbe

/// Every parser that takes outside input, each behind one name. A target
/// returns normally for any input: a crash, a trap, a sanitizer report or a
/// broken invariant (`require`) is a finding.
enum FuzzTarget: String, CaseIterable {
    case config
    case pin
    case certificate
    case proxyURL = "proxy-url"
    case noProxy = "no-proxy"
    case connectReply = "connect-reply"
    case socks5Reply = "socks5-reply"
    case probeQuery = "probe-query"
    case networkSecurityConfig = "nsc"
    case trustKit = "trustkit"
    case appTransportSecurity = "ats"
    case pinStrings = "pin-strings"
    case crossPlatform = "cross-platform"
    case dynamicList = "dynamic-list"
    case httpResponse = "http-response"
    case catalogueFamily = "catalogue-family"
    case prometheusAnswer = "prometheus-answer"
    case startTLSReply = "starttls-reply"

    func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .config: Self.config(text)
        case .pin: Self.pin(text)
        case .certificate: Self.certificate(bytes)
        case .proxyURL: Self.proxyURL(text)
        case .noProxy: Self.noProxy(text)
        case .connectReply: Self.proxyReply(bytes, scheme: "http")
        case .socks5Reply: Self.proxyReply(bytes, scheme: "socks5h")
        case .probeQuery: Self.probeQuery(text)
        case .networkSecurityConfig: Self.clientSource(bytes, format: .nsc)
        case .trustKit: Self.clientSource(bytes, format: .trustkit)
        case .appTransportSecurity: Self.clientSource(bytes, format: .ats)
        case .pinStrings: Self.pinStrings(bytes)
        case .crossPlatform: Self.crossPlatform(bytes)
        case .dynamicList: Self.dynamicList(bytes)
        case .httpResponse: Self.httpResponse(bytes)
        case .catalogueFamily: Self.catalogueFamily(text)
        case .prometheusAnswer: Self.prometheusAnswer(bytes)
        case .startTLSReply: Self.startTLSReply(bytes)
        }
    }

    /// A broken invariant is a finding: stop the way a crash would.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            FileHandle.standardError.write(Data("invariant broken: \(message())\n".utf8))
            abort()
        }
    }

    /// YAML → Config with every problem collected; `file:` pins resolve to
    /// one fixed digest so the fuzzer never touches the file system.
    private static func config(_ text: String) {
        let loader = ConfigLoader(certificateDigests: { _ in [[UInt8](repeating: 7, count: 32)] })
        do {
            let config = try loader.load(yaml: text, path: "fuzz.yaml")
            // An accepted configuration is one the poller can run.
            require(ConfigLimits.interval.contains(config.interval), "interval \(config.interval) accepted")
            require(ConfigLimits.timeoutProblem(config.timeout, interval: config.interval) == nil, "timeout \(config.timeout) accepted")
            require(ConfigLimits.concurrency.contains(config.concurrency), "concurrency \(config.concurrency) accepted")
            for host in config.hosts {
                require((1...65535).contains(host.port), "port \(host.port) accepted")
                for pin in host.pins.all { require(pin.digest.count == pin.kind.digestLength, "a pin of \(pin.digest.count) bytes accepted") }
            }
        } catch {
            for problem in error.problems {
                // Problems are echoed to a terminal: no raw control bytes.
                require(!containsControl(problem.description), "control byte in a config problem: \(problem.description.debugDescription)")
            }
        }
    }

    private static func pin(_ text: String) {
        guard let pin = try? Pin.parse(text) else { return }
        require(pin.digest.count == pin.kind.digestLength, "a \(pin.kind) pin of \(pin.digest.count) bytes was accepted")
        // What was accepted prints back to something that parses the same.
        let again = try? Pin.parse(pin.text)
        require(again == pin, "pin text does not round-trip: \(pin.text.debugDescription)")
    }

    private static func certificate(_ bytes: [UInt8]) {
        let certificates: [X509Certificate]
        if bytes.starts(with: Array("-----BEGIN".utf8)) || bytes.count < 16 {
            certificates = (try? X509Certificate.certificates(pem: String(decoding: bytes, as: UTF8.self))) ?? []
        } else {
            certificates = (try? X509Certificate(der: bytes)).map { [$0] } ?? []
        }
        for certificate in certificates {
            let facts = certificate.facts
            require(facts.spkiSHA256.count == 32, "SPKI digest of \(facts.spkiSHA256.count) bytes")
            for text in [facts.subject, facts.issuer] + facts.subjectAltNames {
                require(!containsControl(TerminalText.sanitize(text)), "sanitised certificate text keeps a control byte")
            }
            _ = CertificateDescription(facts, daysLeft: 30).rows
        }
    }

    /// The seeds write their passwords as `Zq9xSecret`: wherever the
    /// fuzzer moves that text, neither an error nor the redacted URL may
    /// repeat it.
    static let passwordMarker = "Zq9xSecret"

    private static func proxyURL(_ text: String) {
        do {
            let route = try ProxyRoute.parse(url: text, source: "fuzz")
            require((1...65535).contains(route.port), "port \(route.port) accepted")
        } catch {
            require(!error.message.contains(passwordMarker), "an error repeats the password: \(error.message.debugDescription)")
            require(!containsControl(error.message), "control byte in a proxy error")
        }
        let redacted = ProxyRoute.redacted(text)
        require(!redacted.contains(passwordMarker), "the redacted URL keeps the password")
        require(!containsControl(redacted), "redacted proxy URL keeps a control byte")
    }

    private static func noProxy(_ text: String) {
        let halves = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let rule = NoProxyRule(String(halves[0]))
        let host = halves.count > 1 ? String(halves[1]) : "api.example.com"
        _ = rule.excludes(host: host)
        _ = rule.excludes(host: host.uppercased())
    }

    /// Replies fed in fuzzer-chosen pieces (the first byte sets the piece
    /// size), as a proxy's bytes arrive from the socket.
    private static func proxyReply(_ bytes: [UInt8], scheme: String) {
        guard let first = bytes.first else { return }
        let route = try! ProxyRoute.parse(url: "\(scheme)://user:secret@proxy.test:3128", source: "fuzz")
        var exchange = ProxyExchange(route: route, targetHost: "api.example.com", targetPort: 443)
        exchange.didSend(exchange.outgoing.count)
        let piece = Int(first % 64) + 1
        var rest = bytes.dropFirst()
        var received = 0
        while !rest.isEmpty {
            let chunk = Array(rest.prefix(piece))
            rest = rest.dropFirst(chunk.count)
            received += chunk.count
            switch exchange.receive(chunk) {
            case .needMore:
                require(received <= ProxyExchange.maximumResponseBytes + 64 * 1024, "a reply grows without bound")
            case .established:
                return
            case .failed(let reason):
                require(!reason.contains("secret"), "a proxy failure repeats the password")
                return
            }
            exchange.didSend(exchange.outgoing.count)
        }
    }

    private static func probeQuery(_ text: String) {
        let items = ProbeQuery.items(fromQueryString: text)
        require(items.count <= 64, "\(items.count) query items")
        if case .failure(let problem) = ProbeQuery.parse(items) {
            require(!containsControl(problem.description), "control byte in a 400 answer")
        }
    }

    static func containsControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
