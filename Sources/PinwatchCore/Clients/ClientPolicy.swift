import Foundation

/// The file formats pins are imported from (DESIGN §12; README "Pins from
/// your apps").
public enum ClientFormat: String, Hashable, Sendable, CaseIterable {
    /// Android `res/xml/network_security_config.xml`.
    case nsc
    /// iOS TrustKit `TSKConfiguration`, XML plist or JSON.
    case trustkit
    /// OkHttp `CertificatePinner.Builder().add(…)` calls in Kotlin or Java.
    case okhttp
    /// curl's `--pinnedpubkey 'sha256//…'`.
    case curl
    /// An HTTP `Public-Key-Pins` header.
    case hpkp
    /// A signed dynamic pin list (WultraSSLPinning's JSON).
    case dynamicList = "dynamic_list"
    /// Apple's App Transport Security pins: `NSAppTransportSecurity` →
    /// `NSPinnedDomains` in an Info.plist (XML or binary).
    case ats
    /// react-native-ssl-manager's `ssl_config.json`.
    case rnSSLManager = "rn_ssl_manager"
    /// react-native-ssl-public-key-pinning's `initializeSslPinning({…})`
    /// literal in JavaScript or TypeScript.
    case rnPinning = "rn_pinning"
    /// Flutter `http_certificate_pinning`'s `allowedSHAFingerprints`.
    case flutter

    /// What a person calls it, for comments and messages.
    public var title: String {
        switch self {
        case .nsc: return "Android network security config"
        case .trustkit: return "TrustKit configuration"
        case .okhttp: return "OkHttp CertificatePinner"
        case .curl: return "curl --pinnedpubkey"
        case .hpkp: return "HPKP header"
        case .dynamicList: return "signed dynamic pin list"
        case .ats: return "App Transport Security NSPinnedDomains"
        case .rnSSLManager: return "react-native-ssl-manager ssl_config.json"
        case .rnPinning: return "react-native-ssl-public-key-pinning initializeSslPinning"
        case .flutter: return "Flutter http_certificate_pinning"
        }
    }
}

/// The pins one client applies to one domain pattern.
public struct ClientPinRule: Hashable, Sendable {
    /// Lowercase, without a trailing dot. OkHttp's `*.` (one label) and
    /// `**.` (any depth) prefixes are kept as written.
    public var domain: String
    /// Android `includeSubdomains`, TrustKit `TSKIncludeSubdomains`, HPKP
    /// `includeSubDomains`.
    public var includeSubdomains: Bool
    public var pins: [Pin]
    /// After this the client stops pinning (Android `expiration`, TrustKit
    /// `TSKExpirationDate`), or, in a dynamic list, the entry stops counting.
    public var expiration: Date?
    /// False for TrustKit's `TSKEnforcePinning: false` and HPKP's
    /// Report-Only header: failures are reported, connections go on.
    public var enforced: Bool
    /// Where it was read: `file:line` or `file: entry`.
    public var origin: String
    /// Apple's two lists, each a check of its own (nil for every other
    /// format, whose `pins` are one list any of which passes).
    public var identities: PinnedIdentities?
    /// The chain level a signed list's entry pins (0 the leaf, up to the
    /// root): its fingerprint counts there and nowhere else.
    public var depth: Int?
    /// Android's `<certificateTransparency enabled=…>` in force for this
    /// domain (its own domain-config's, else the nearest parent's, else
    /// base-config's); nil when the file says nothing, and the release's
    /// `ct_required:` decides.
    package var certificateTransparency: Bool?

    public init(
        domain: String, includeSubdomains: Bool = false, pins: [Pin], expiration: Date? = nil, enforced: Bool = true,
        origin: String, identities: PinnedIdentities? = nil, depth: Int? = nil
    ) {
        self.depth = depth
        self.domain = domain
        self.includeSubdomains = includeSubdomains
        self.pins = pins
        self.expiration = expiration
        self.enforced = enforced
        self.origin = origin
        self.identities = identities
    }

    /// How specifically this rule names `host` (higher wins), nil when it
    /// does not apply: an exact name beats a subdomain rule, and a longer
    /// parent beats a shorter one, as Android and TrustKit choose.
    public func specificity(for host: String) -> Int? {
        let host = host.lowercased()
        if domain.hasPrefix("**.") {
            let parent = String(domain.dropFirst(3))
            return host == parent || host.hasSuffix("." + parent) ? parent.count : nil
        }
        if domain.hasPrefix("*.") {
            let parent = String(domain.dropFirst(2))
            guard host.hasSuffix("." + parent) else { return nil }
            return host.dropLast(parent.count + 1).contains(".") ? nil : parent.count + 1
        }
        if host == domain { return Int.max }
        guard includeSubdomains, host.hasSuffix("." + domain) else { return nil }
        // ATS's NSIncludesSubdomains covers one label below the domain, no deeper.
        if identities != nil, host.dropLast(domain.count + 1).contains(".") { return nil }
        return domain.count
    }

    /// Whether a pin of this rule is the certificate at its `depth` of
    /// `chain` (the verified chain, as the app's trust evaluation builds
    /// it); a rule without a depth is not tied to a level.
    public func matchesAtItsDepth(_ chain: [ChainCertificate]) -> Bool {
        guard let depth else { return true }
        guard depth < chain.count else { return false }
        return pins.contains { chain[depth].facts.digest(for: $0.kind) == $0.digest }
    }

    /// A name that can be dialled: not a wildcard pattern.
    public var isConcreteHost: Bool { !domain.hasPrefix("*") }
}

/// Something a source says that deserves a look but does not stop it
/// from loading: a TrustKit domain with one hash, a legacy SHA-1 pin, a
/// dynamic-list entry with a bad signature.
public struct ClientSourceNote: Hashable, Sendable {
    public var origin: String
    public var message: String

    public init(origin: String, message: String) {
        self.origin = origin
        self.message = message
    }

    public var description: String { TerminalText.sanitize("\(origin): \(message)") }
}

/// Every rule one source yields, as an importer read it.
public struct ImportedPins: Hashable, Sendable {
    public var file: String
    public var format: ClientFormat
    public var rules: [ClientPinRule]
    public var notes: [ClientSourceNote]

    public init(file: String, format: ClientFormat, rules: [ClientPinRule], notes: [ClientSourceNote] = []) {
        self.file = file
        self.format = format
        self.rules = rules
        self.notes = notes
    }
}

/// One client release's pins (`clients:` in the configuration): what that
/// app, as shipped, will accept.
public struct ClientPolicy: Hashable, Sendable {
    /// `android 5.2`, as the configuration names it.
    public var name: String
    public var pins: ImportedPins
    /// Names this release pins that must not join the poll (`skip:`): hosts
    /// unreachable from here, or not worth a probe.
    public var skip: Set<String>
    /// The release's own trust store (`trust_store:`): its path, and so its
    /// verdicts, are built against it; nil: the host's.
    public var trustStore: TrustStore?
    /// A dynamic list carries leaf-certificate fingerprints on purpose and
    /// is updated before each renewal: a leaf match is the normal case.
    public var leafPinsExpected: Bool { pins.format == .dynamicList }
    /// `ct_required:`: the release targets an Android API level (37 and
    /// later) whose platform verifier requires Certificate Transparency by
    /// default; a network security config's element overrides it.
    package var ctRequired = false

    public init(name: String, pins: ImportedPins, skip: Set<String> = []) {
        self.name = name
        self.pins = pins
        self.skip = skip
    }

    /// Whether the rules deciding a host make this release refuse a leaf
    /// without compliant SCTs: the file's element where it says, else the
    /// release's default.
    package func requiresCT(under rules: [ClientPinRule]) -> Bool {
        rules.contains { $0.certificateTransparency ?? ctRequired }
    }

    /// The rules that decide for `host`, as each library chooses them.
    /// OkHttp's `CertificatePinner` collects the pins of every pattern that
    /// matches, and any one of them passes (so do the React Native
    /// libraries, which hand their pins to it on Android, and Flutter's
    /// list of fingerprints); ATS unites the identities of
    /// the exact domain and of its parent when that one includes
    /// subdomains; Android, TrustKit and HPKP use only the most specific
    /// domain (several pin-sets or list entries may share it).
    public func rules(for host: String) -> [ClientPinRule] {
        let scored = pins.rules.compactMap { rule in rule.specificity(for: host).map { (rule, $0) } }
        if [.okhttp, .ats, .rnSSLManager, .rnPinning, .flutter].contains(pins.format) { return scored.map(\.0) }
        guard let best = scored.map(\.1).max() else { return [] }
        return scored.filter { $0.1 == best }.map(\.0)
    }

    /// The names this client connects to that can be probed: exact names
    /// only. The base of an `includeSubdomains` rule is a pattern (the app
    /// may never call `example.com` itself, and it may not even resolve):
    /// it is probed only when `hosts:` lists it.
    public var concreteHosts: [String] {
        var seen = Set<String>()
        // A list entry whose signature failed names a host nobody vouched for.
        let dialled = pins.rules.filter { rule in
            rule.isConcreteHost && !rule.includeSubdomains && !(leafPinsExpected && rule.pins.isEmpty) && !skip.contains(rule.domain)
        }
        return dialled.map(\.domain).filter { seen.insert($0).inserted }
    }
}
