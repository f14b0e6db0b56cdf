import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchImport
import PinwatchProbe
import PinwatchSystem

/// Finds and loads the configuration every command uses (DESIGN §4's
/// lookup order), with certificate files read through OpenSSL, and keeps
/// the hosts of the shard. Shared by `pinwatch` and `pinwatch-serve`.
package enum ConfigFile {
    package struct Failure: Error, CustomStringConvertible {
        /// One line per problem.
        package var lines: [String]
        package var description: String { lines.joined(separator: "\n") }
    }

    /// Reads `clients:` sources: signatures through OpenSSL, list URLs
    /// through the probes' proxy rules and trust.
    package static let clientSources = ClientSourceLoader(
        verify: { message, signature, key in SignedListSignature.verify(message: message, signature: signature, publicKey: key) },
        fetch: { source, limit, challenge throws(ClientSourceError) in
            let fetched = try SignedListDownload.fetch(source, maximumBytes: limit, challenge: challenge)
            return ClientSourceLoader.FetchedList(body: fetched.body, signature: fetched.signature)
        })

    /// The same without downloads, for commands that promise to dial
    /// nothing (`preflight`): a list URL is reported as not fetched.
    package static let offlineClientSources = ClientSourceLoader(
        verify: { message, signature, key in SignedListSignature.verify(message: message, signature: signature, publicKey: key) },
        fetch: { source, _, _ throws(ClientSourceError) in
            throw ClientSourceError(
                file: source.locationText,
                message: "not downloaded: this command dials nothing (with `optional: true` the release is left out instead)")
        })

    /// `catalogue` fills `Config.catalogue` (the front ends pass the
    /// catalogue loader's; nil leaves it empty).
    package static func load(
        explicit: String?, shard: Shard? = nil, offline: Bool = false, catalogue: CatalogueBuilder? = nil
    ) throws(Failure) -> Config {
        let environment = ProcessEnvironment.current
        let cwd = FileManager.default.currentDirectoryPath
        guard let path = ConfigLocator.locate(explicit: explicit, currentDirectory: cwd, environment: environment) else {
            throw Failure(lines: [
                """
                no configuration found: pass --config PATH, or create ./pinwatch.yaml or \
                $XDG_CONFIG_HOME/pinwatch/config.yaml (`pinwatch init HOST…` writes one from the hosts' live chains; \
                `pinwatch demo` shows a built-in example)
                """
            ])
        }
        let loader = ConfigLoader(
            certificateDigests: { try CertificateReader.certificateDigests(inFile: $0) },
            clientReader: { source throws(ClientSourceError) in
                try (offline ? offlineClientSources : clientSources).read(source)
            },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) },
            currentDirectory: cwd, catalogueBuilder: catalogue,
            listDirectory: { path, limit throws(RegularFile.ReadError) in try RegularFile.listDirectory(path, limit: limit) },
            trustStoreReader: { try TrustStoreFiles.read($0) }
        ).readingCTLogs { try CTLogList.sctLogKeys(configured: $0) }
        do {
            return try loader.load(path: path).keepingShard(shard)
        } catch {
            throw Failure(lines: error.problems.map(\.description))
        }
    }
}
