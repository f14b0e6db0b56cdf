import Foundation
import PinwatchCore

/// Flutter's `http_certificate_pinning`: `allowedSHAFingerprints: [...]`
/// in Dart, given to `HttpCertificatePinning.check(serverURL: …)` or to a
/// Dio `CertificatePinningInterceptor`. Each fingerprint is the SHA-256 of
/// a whole certificate, in hex with colons, spaces or neither: a `cert:`
/// pin, which a renewed certificate breaks even when it keeps its key.
/// The host is the call's `serverURL:` literal; without one (Dio's
/// interceptor), the entry's `host:`.
package enum FlutterPinningImporter {
    package static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        let source = SourceTokens(bytes, singleQuotedStrings: true)
        var cursor = LiteralCursor(tokens: source.tokens, constants: source.stringConstants())
        var imported = ImportedPins(file: file, format: .flutter, rules: [])
        var index = 0
        while index + 2 < cursor.tokens.count {
            defer { index += 1 }
            guard cursor.tokens[index].kind == .name("allowedSHAFingerprints"),
                cursor.tokens[index + 1].kind == .punctuation(UInt8(ascii: ":"))
            else { continue }
            let line = cursor.tokens[index].line
            let origin = "\(file):\(line)"
            cursor.index = index + 2
            guard let fingerprints = cursor.strings() else {
                imported.notes.append(
                    ClientSourceNote(origin: origin, message: "allowedSHAFingerprints is not a list of literals of this file: left out"))
                continue
            }
            var pins: [Pin] = []
            for text in fingerprints {
                guard let digest = hexDigest(text) else {
                    throw ClientSourceError(
                        file: file, line: line, message: "\(EchoedInput.quoted(text)) is not a SHA-256 fingerprint in hex")
                }
                pins.append(Pin(kind: .cert, digest: digest, text: "cert:" + PinText.hex(digest)))
            }
            let host = serverHost(cursor.tokens, around: index)
            imported.rules.append(ClientPinRule(domain: host ?? "", pins: pins, origin: origin))
            imported.notes.append(
                ClientSourceNote(
                    origin: origin,
                    message: "certificate fingerprints (cert: pins): they break at every renewal, even one that keeps the key"))
        }
        guard !imported.rules.isEmpty || !imported.notes.isEmpty else {
            throw ClientSourceError(file: file, message: "no allowedSHAFingerprints: [...] list")
        }
        return imported
    }

    /// 32 bytes of hex, with `:` or spaces between them or not.
    static func hexDigest(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: " ") })
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for offset in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[offset..<(offset + 2)], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// The host of a `serverURL: "https://…"` literal in the same call:
    /// within the parentheses around `index`.
    private static func serverHost(_ tokens: [SourceTokens.Token], around index: Int) -> String? {
        var open = index
        var depth = 0
        while open > 0 {
            open -= 1
            guard case .punctuation(let byte) = tokens[open].kind else { continue }
            if byte == UInt8(ascii: ")") { depth += 1 }
            if byte == UInt8(ascii: "(") {
                if depth == 0 { break }
                depth -= 1
            }
        }
        var position = open
        depth = 0
        while position + 2 < tokens.count {
            position += 1
            if case .punctuation(let byte) = tokens[position].kind {
                if byte == UInt8(ascii: "(") { depth += 1 }
                if byte == UInt8(ascii: ")") {
                    if depth == 0 { return nil }
                    depth -= 1
                }
            }
            guard depth == 0, tokens[position].kind == .name("serverURL"),
                tokens[position + 1].kind == .punctuation(UInt8(ascii: ":")),
                case .string(let url, template: false) = tokens[position + 2].kind
            else { continue }
            return URLComponents(string: url)?.host?.lowercased()
        }
        return nil
    }
}
