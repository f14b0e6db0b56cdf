import Foundation

/// Where the verifier takes its roots from.
public enum TrustSource: Hashable, Sendable {
    case system
    /// An absolute path to a PEM bundle.
    case bundle(String)
    /// PEM text held in memory: the demo's and the tests' private roots,
    /// so that they leave no files behind.
    case pem(String)
}

/// A proxy that applies to one host, after DESIGN §6's rules.
public struct ProxyRoute: Hashable, Sendable {
    public enum Scheme: String, Sendable {
        case http
        case socks5
        /// SOCKS5 with the proxy resolving the name.
        case socks5h
    }

    public var scheme: Scheme
    public var host: String
    public var port: Int
    /// Never printed; only sent to the proxy.
    public var username: String?
    public var password: String?
    /// Where the proxy came from: `config` or the environment variable's name.
    public var source: String
    /// Why a proxy that is set cannot be used (an `https://` or garbled
    /// URL). A pinned client still refuses on it, so the host keeps the
    /// `proxy` alert and its probe fails with this reason instead of
    /// quietly going direct.
    public var problem: String?

    public init(
        scheme: Scheme, host: String, port: Int, username: String? = nil, password: String? = nil, source: String,
        problem: String? = nil
    ) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.source = source
        self.problem = problem
    }

    /// A proxy variable that is set but cannot be used.
    public static func unusable(source: String, problem: String) -> ProxyRoute {
        ProxyRoute(scheme: .http, host: "", port: 0, source: source, problem: problem)
    }

    /// The URL without credentials: the only form that reaches any output.
    public var redactedURL: String {
        if problem != nil { return "(unusable \(source) value)" }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(hostPart):\(port)"
    }
}

/// Everything the probe needs for one host.
public struct ProbeTarget: Hashable, Sendable {
    public var host: String
    public var port: Int
    /// Sent as SNI and used for hostname verification.
    public var serverName: String
    /// Dialled instead of resolving `host` (or sent as CONNECT target).
    public var connectAddress: String?
    public var trust: TrustSource
    public var proxy: ProxyRoute?
    /// Bounds the whole probe: DNS, connect, proxy, handshake.
    public var timeout: TimeInterval
    /// The signature family the handshake offers; nil offers every family
    /// the client library supports, as a default client does.
    public var keyTypeOffer: KeyTypeOffer?
    /// `starttls:`: the plaintext dialogue run before the handshake.
    public var starttls: StartTLSProtocol?
    /// `revocation:`: ask for a stapled OCSP response and keep what the
    /// CRLs are looked up by.
    public var checksRevocation = true
    /// The logs a client release's Certificate Transparency requirement is
    /// checked against: the probe collects the SCTs it is served and checks
    /// each with its log's key. Nil collects none.
    package var sctLogs: SCTLogKeys?

    public init(
        host: String, port: Int, serverName: String, connectAddress: String? = nil,
        trust: TrustSource = .system, proxy: ProxyRoute? = nil, timeout: TimeInterval = 5,
        keyTypeOffer: KeyTypeOffer? = nil, starttls: StartTLSProtocol? = nil
    ) {
        self.host = host
        self.port = port
        self.serverName = serverName
        self.connectAddress = connectAddress
        self.trust = trust
        self.proxy = proxy
        self.timeout = timeout
        self.keyTypeOffer = keyTypeOffer
        self.starttls = starttls
    }
}

/// `key_types:`: a server holding an ECDSA and an RSA certificate picks
/// by what the client offers, so each family is a handshake of its own.
public enum KeyTypeOffer: String, Hashable, Sendable, CaseIterable {
    case ecdsa
    case rsa
}

/// `starttls:`: a protocol whose clients upgrade a plaintext connection to
/// TLS on the host's own port.
public enum StartTLSProtocol: String, Hashable, Sendable, CaseIterable {
    case smtp
    case imap
    case xmpp
    case postgres

    /// How messages name the protocol.
    public var displayName: String {
        switch self {
        case .smtp: return "SMTP"
        case .imap: return "IMAP"
        case .xmpp: return "XMPP"
        case .postgres: return "PostgreSQL"
        }
    }

    /// Ports registered for TLS from the first byte (RFC 8314 for mail):
    /// their servers wait for the client's hello, so a STARTTLS dialogue
    /// there would wait for a greeting until the timeout.
    public static let implicitTLSPorts: [Int: String] = [
        443: "HTTPS", 465: "SMTP submission over TLS", 636: "LDAP over TLS", 853: "DNS over TLS", 993: "IMAP over TLS",
        995: "POP3 over TLS", 5223: "XMPP over TLS", 8443: "HTTPS",
    ]
}

/// DESIGN §8's `error.kind`.
public enum ProbeErrorKind: String, Sendable, Codable, CaseIterable {
    case dns, refused, timeout, tls
    case noCertificate = "no_certificate"
    case proxy
    /// pinwatch's own machine could not give the probe what it needed
    /// (descriptors, memory): nothing is known about the host.
    case local
}

/// What pinwatch itself ran out of: the reason of a failed cycle, and the
/// `reason` label of `pinwatch_cycle_failures_total`.
public enum LocalResourceShortage: String, Hashable, Sendable, CaseIterable {
    /// EMFILE, ENFILE: the process's or the system's open-file limit.
    case descriptors
    /// ENOMEM, ENOBUFS.
    case memory
}

public struct ProbeFailure: Error, Hashable, Sendable {
    public var kind: ProbeErrorKind
    /// One line.
    public var message: String
    /// Set, with kind `local`, when the probe failed for want of a local
    /// resource: a poll cycle then keeps the host's previous verdict.
    public var shortage: LocalResourceShortage?

    public init(kind: ProbeErrorKind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The failure as an error host's reason says it.
    public var reason: String { "probe failed (\(kind.rawValue)): \(message)" }

    /// The failure an exported reason (`reason` of a failure of `kind`)
    /// tells of: its message without the words `reason` adds.
    public init(kind: ProbeErrorKind, reason: String) {
        let added = ProbeFailure(kind: kind, message: "").reason
        self.init(kind: kind, message: reason.hasPrefix(added) ? String(reason.dropFirst(added.count)) : reason)
    }

    public static func local(_ shortage: LocalResourceShortage, message: String) -> ProbeFailure {
        var failure = ProbeFailure(kind: .local, message: message)
        failure.shortage = shortage
        return failure
    }
}

/// What one probe saw. A failed probe has an empty chain and a failure.
public struct ProbeResult: Hashable, Sendable {
    /// The address actually dialled (the proxy's when tunnelling).
    public var address: String?
    /// The verified chain when verification succeeded; otherwise the chain
    /// the verifier built as far as it could, else the chain as sent. Level
    /// 0 is the leaf.
    public var chain: [ChainCertificate]
    /// How many certificates the server sent.
    public var sentCount: Int
    public var trusted: Bool
    /// The verifier's reason when not trusted (one line).
    public var trustError: String?
    public var failure: ProbeFailure?
    public var elapsed: TimeInterval
    /// The proxy the probe tunnelled through, if any.
    @OutOfLine public var proxy: ProxyRoute?
    /// When the probe finished.
    public var finishedAt: Date
    /// The levels whose revocation can be looked up by CRL (a verified
    /// chain's, each with its issuer's key).
    public var revocationSubjects: [RevocationSubject] = []
    /// What the stapled OCSP response and the CRLs said, once looked up.
    public var revocation: [RevocationFinding] = []
    /// Every SCT the server delivered for the leaf (embedded, in the TLS
    /// extension, in a stapled OCSP response), each checked with its log's
    /// key; nil when none were collected (no release requires CT, or no
    /// `ct: logs:` to check them with).
    package var scts: [ObservedSCT]?

    public init(
        address: String? = nil, chain: [ChainCertificate] = [], sentCount: Int = 0, trusted: Bool = false,
        trustError: String? = nil, failure: ProbeFailure? = nil, elapsed: TimeInterval = 0,
        proxy: ProxyRoute? = nil, finishedAt: Date = Date()
    ) {
        self.address = address
        self.chain = chain
        self.sentCount = sentCount
        self.trusted = trusted
        self.trustError = trustError
        self.failure = failure
        self.elapsed = elapsed
        self.proxy = proxy
        self.finishedAt = finishedAt
    }

    public static func failed(_ failure: ProbeFailure, address: String? = nil, elapsed: TimeInterval, proxy: ProxyRoute? = nil)
        -> ProbeResult
    {
        ProbeResult(address: address, failure: failure, elapsed: elapsed, proxy: proxy)
    }
}
