import Foundation
import PinwatchCore
import PinwatchSystem

/// Reads a client source of any format: bounded, then handed to its
/// importer. Signatures and downloads are injected (OpenSSL and sockets
/// live in PinwatchProbe).
package struct ClientSourceLoader: Sendable {
    /// Fetches a dynamic list URL (the source carries the proxy setting,
    /// trust and timeout), bounded to `maximumBytes`, sending `challenge`
    /// as `X-Cert-Pinning-Challenge`.
    package typealias Fetch =
        @Sendable (_ source: ClientSource, _ maximumBytes: Int, _ challenge: String) throws(ClientSourceError)
        -> FetchedList

    /// A list as downloaded: the body and, from a challenge-signing
    /// server, its `X-Cert-Pinning-Signature`.
    package struct FetchedList: Sendable {
        package var body: [UInt8]
        package var signature: String?

        package init(body: [UInt8], signature: String? = nil) {
            self.body = body
            self.signature = signature
        }
    }

    /// App configurations are kilobytes; a larger file is a mistake or an attack.
    package static let maximumBytes = 4 * 1024 * 1024

    private let verify: DynamicPinListImporter.SignatureCheck
    private let fetch: Fetch?
    private let now: @Sendable () -> Date

    package init(
        verify: @escaping DynamicPinListImporter.SignatureCheck, fetch: Fetch? = nil, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.verify = verify
        self.fetch = fetch
        self.now = now
    }

    /// A configured `clients:` entry.
    package func read(_ source: ClientSource) throws(ClientSourceError) -> ImportedPins {
        let bytes: [UInt8]
        var signed: DynamicPinListImporter.ChallengeSignature?
        switch source.location {
        case .file(let path):
            bytes = try Self.readFile(path)
            if let signature = source.listSignature, let challenge = source.listChallenge {
                signed = DynamicPinListImporter.ChallengeSignature(challenge: challenge, signature: signature)
            }
        case .url(let url):
            guard let fetch else { throw ClientSourceError(file: url, message: "downloading is not available here") }
            // Fresh each time, so a recorded answer cannot be replayed.
            let challenge = Self.freshChallenge()
            let fetched = try fetch(source, Self.maximumBytes, challenge)
            bytes = fetched.body
            signed = fetched.signature.map { DynamicPinListImporter.ChallengeSignature(challenge: challenge, signature: $0) }
        }
        let key = source.publicKey.flatMap { Data(base64Encoded: $0) }.map(Array.init) ?? []
        return try read(
            bytes, file: source.locationText, format: source.format, publicKey: key, signed: signed,
            downloaded: { if case .url = source.location { return true } else { return false } }())
    }

    /// 16 random bytes in base64, as the SDK's own challenge.
    static func freshChallenge() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// Bytes already read, of a known format; `signed` for a saved
    /// challenge-signed list.
    package func read(
        _ bytes: [UInt8], file: String, format: ClientFormat, publicKey: [UInt8] = [],
        signed: DynamicPinListImporter.ChallengeSignature? = nil, downloaded: Bool = false
    ) throws(ClientSourceError) -> ImportedPins {
        switch format {
        case .nsc:
            return try NetworkSecurityConfigImporter.read(bytes, file: file)
        case .trustkit:
            return try TrustKitImporter.read(bytes, file: file)
        case .ats:
            return try AppTransportSecurityImporter.read(bytes, file: file)
        case .rnSSLManager:
            return try ReactNativeSSLManagerImporter.read(bytes, file: file)
        case .rnPinning:
            return try ReactNativePinningImporter.read(bytes, file: file)
        case .flutter:
            return try FlutterPinningImporter.read(bytes, file: file)
        case .dynamicList:
            guard publicKey.count == 65 else {
                throw ClientSourceError(file: file, message: "a signed list needs the app's public key (uncompressed P-256 point)")
            }
            return try DynamicPinListImporter.read(
                bytes, file: file, publicKey: publicKey, now: now(), verify: verify, signed: signed, downloaded: downloaded)
        case .okhttp, .curl, .hpkp:
            return try PinStringImporter.read(try Self.text(bytes, file: file), file: file, format: format)
        }
    }

    package static func readFile(_ path: String) throws(ClientSourceError) -> [UInt8] {
        do {
            return try RegularFile.read(path, limit: maximumBytes)
        } catch {
            throw ClientSourceError(file: path, message: error.reason)
        }
    }

    static func text(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ClientSourceError(file: file, message: "not UTF-8 text")
        }
        return text
    }

    /// The format of a file named on `pinwatch import`, from its contents.
    package static func detect(_ bytes: [UInt8]) -> ClientFormat? {
        let head = String(decoding: bytes.prefix(65_536), as: UTF8.self)
        // Binary plists keep their keys as ASCII strings, so the key names
        // are found in them too.
        if head.contains("NSPinnedDomains") && !head.contains("TSKPinnedDomains") { return .ats }
        if PropertyListDocument.isBinary(bytes) { return .trustkit }
        if head.contains("<network-security-config") { return .nsc }
        if head.contains("<plist") || head.contains("TSKPinnedDomains") || head.contains("TSKConfiguration") { return .trustkit }
        if head.contains("\"fingerprints\"") { return .dynamicList }
        if head.contains("\"sha256Keys\"") { return .rnSSLManager }
        if head.contains("initializeSslPinning") { return .rnPinning }
        if head.contains("allowedSHAFingerprints") { return .flutter }
        return PinStringImporter.detect(head)
    }
}
