import Foundation

/// One entry of `clients:` as the configuration writes it; the loader
/// turns it into a `ClientPolicy` by reading the source.
public struct ClientSource: Hashable, Sendable {
    public enum Location: Hashable, Sendable {
        /// Resolved against the configuration's folder.
        case file(String)
        case url(String)
    }

    public var name: String
    public var format: ClientFormat
    public var location: Location
    /// A dynamic list's signing key: an uncompressed P-256 point, base64.
    public var publicKey: String?
    /// A saved challenge-signed list (WultraSSLPinning 1.9): the
    /// `X-Cert-Pinning-Signature` the server returned, base64, and the
    /// `X-Cert-Pinning-Challenge` it answered. A URL gets a fresh challenge.
    public var listSignature: String?
    public var listChallenge: String?
    /// The host of a curl or HPKP source that names none.
    public var host: String?
    /// Names the source pins that do not join the poll (lowercase).
    public var skip: Set<String> = []
    /// `trust_store:`: the release's own roots (a PEM bundle or a folder),
    /// resolved against the configuration's folder; nil: the host's store.
    public var trustStore: String?
    /// A source that cannot be read is then left out with a warning
    /// instead of failing the configuration.
    public var optional: Bool
    /// `ct_required:`: the release requires Certificate Transparency by
    /// default (an app targeting Android API 37 or later).
    package var ctRequired = false
    /// Line of the entry in the configuration.
    public var line: Int
    /// How a list URL is fetched: the configuration's proxy, trust and
    /// timeout, as for probes.
    public var proxy: ProxySetting = .auto
    public var trust: TrustSource = .system
    public var timeout: TimeInterval = 5

    public init(
        name: String, format: ClientFormat, location: Location, publicKey: String? = nil, host: String? = nil,
        optional: Bool = false, line: Int = 0
    ) {
        self.name = name
        self.format = format
        self.location = location
        self.publicKey = publicKey
        self.host = host
        self.optional = optional
        self.line = line
    }

    /// The file or URL, for messages.
    public var locationText: String {
        switch location {
        case .file(let path): return path
        case .url(let url): return url
        }
    }
}

/// Reads a client source into its pins; injected into the loader because
/// reading one may need OpenSSL (signatures) or the network (a list URL).
public typealias ClientSourceReader = @Sendable (ClientSource) throws(ClientSourceError) -> ImportedPins

/// Why a source could not be read: where (file, line or entry) and what.
public struct ClientSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    /// A plist key path or list entry, where there is no line.
    public var entry: String?
    public var message: String

    public init(file: String, line: Int? = nil, entry: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.entry = entry
        self.message = message
    }

    public var description: String {
        var place = file
        if let line, line > 0 { place += ":\(line)" }
        if let entry { place += ": \(entry)" }
        return TerminalText.sanitize("\(place): \(message)")
    }
}
