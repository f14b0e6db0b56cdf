import Foundation
import PinwatchCore
import PinwatchImport

/// The app files `clients:` and `pinwatch import` read: whatever the bytes,
/// an importer returns pins of the right length or an error that is safe
/// to print, and nothing from the file reaches a terminal raw.
extension FuzzTarget {
    /// Signatures are not what is fuzzed here: half the entries "verify".
    private static let loader = ClientSourceLoader(verify: { message, _, _ in message.count % 2 == 0 })

    static func clientSource(_ bytes: [UInt8], format: ClientFormat, publicKey: [UInt8] = []) {
        do {
            let pins = try loader.read(bytes, file: "fuzz.src", format: format, publicKey: publicKey)
            for rule in pins.rules {
                for pin in rule.pins {
                    require(pin.digest.count == pin.kind.digestLength, "a \(pin.kind) pin of \(pin.digest.count) bytes accepted")
                }
                require(
                    rule.domain.isEmpty || HostNameCheck.problem(rule.domain.replacingOccurrences(of: "*", with: "x")) == nil,
                    "domain \(rule.domain.debugDescription) accepted")
            }
            for note in pins.notes {
                require(!containsControl(note.description), "control byte in a note: \(note.description.debugDescription)")
            }
            // The stanza is pasted into a configuration: it must load.
            let yaml = ImportReport.yaml([pins])
            require(!containsControl(yaml.replacingOccurrences(of: "\n", with: "")), "control byte in the import stanza")
            _ = ImportReport.json([pins])
        } catch {
            require(!containsControl(error.description), "control byte in a source error: \(error.description.debugDescription)")
        }
    }

    /// The first byte picks OkHttp, curl or HPKP.
    static func pinStrings(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let formats: [ClientFormat] = [.okhttp, .curl, .hpkp]
        clientSource(Array(bytes.dropFirst()), format: formats[Int(first) % formats.count])
    }

    /// The first byte picks react-native-ssl-manager, the
    /// initializeSslPinning literal or Flutter's fingerprints.
    static func crossPlatform(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let formats: [ClientFormat] = [.rnSSLManager, .rnPinning, .flutter]
        clientSource(Array(bytes.dropFirst()), format: formats[Int(first) % formats.count])
    }

    static func dynamicList(_ bytes: [UInt8]) {
        clientSource(bytes, format: .dynamicList, publicKey: [4] + [UInt8](repeating: 1, count: 64))
    }

    /// A list server's answer, as the download reads it.
    static func httpResponse(_ bytes: [UInt8]) {
        let limit = 4096
        _ = HTTPResponseBody.isComplete(bytes, maximumBodyBytes: limit)
        do {
            let body = try HTTPResponseBody.parse(bytes, maximumBodyBytes: limit)
            require(body.count <= limit, "a body of \(body.count) bytes over the \(limit) limit")
        } catch {
            require(!containsControl(error.description), "control byte in an HTTP error")
        }
    }
}
