import Foundation
import PinwatchCore

/// react-native-ssl-public-key-pinning's `initializeSslPinning({host:
/// {includeSubdomains, publicKeyHashes: [...]}})` in JavaScript or
/// TypeScript: string literals, or string constants of the same file.
///
/// Its rule, from the library: each host becomes one OkHttp pattern on
/// Android, `**.host` with `includeSubdomains` (the host and every name
/// below it) else the host alone, and any hash of any matching pattern
/// passes; iOS hands the same map to TrustKit, which refuses a host with
/// fewer than two hashes. A host whose value is anything else is named and
/// left out.
package enum ReactNativePinningImporter {
    package static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        let source = SourceTokens(bytes, singleQuotedStrings: true)
        var cursor = LiteralCursor(tokens: source.tokens, constants: source.stringConstants())
        var imported = ImportedPins(file: file, format: .rnPinning, rules: [])
        var found = false
        while let start = cursor.next(call: "initializeSslPinning") {
            found = true
            cursor.index = start
            try hosts(&cursor, file: file, into: &imported)
        }
        guard found else {
            throw ClientSourceError(file: file, message: "no initializeSslPinning({...}) call with an object literal")
        }
        return imported
    }

    private static func hosts(_ cursor: inout LiteralCursor, file: String, into imported: inout ImportedPins) throws(ClientSourceError) {
        guard cursor.take("{") else { return }
        while let key = cursor.key() {
            let line = cursor.line
            let origin = "\(file):\(line)"
            guard cursor.take(":"), cursor.take("{") else {
                imported.notes.append(
                    ClientSourceNote(origin: origin, message: "\(EchoedInput.quoted(key)): not an object literal: left out"))
                cursor.skipValue()
                cursor.skipComma()
                continue
            }
            var include = false
            var hashes: [String]?
            var unread: String?
            while let option = cursor.key() {
                guard cursor.take(":") else { break }
                switch option {
                case "includeSubdomains":
                    if let flag = cursor.boolean() { include = flag } else { unread = option }
                case "publicKeyHashes":
                    if let strings = cursor.strings() { hashes = strings } else { unread = option }
                default:
                    cursor.skipValue()
                }
                cursor.skipComma()
            }
            _ = cursor.take("}")
            cursor.skipComma()
            let domain = key.lowercased()
            if let unread {
                imported.notes.append(
                    ClientSourceNote(
                        origin: origin, message: "\(EchoedInput.quoted(key)): \(unread) is not a literal of this file: left out"))
                continue
            }
            guard HostNameCheck.problem(domain) == nil else {
                throw ClientSourceError(file: file, line: line, message: "\(EchoedInput.quoted(key)) is not a host name")
            }
            guard let hashes else {
                throw ClientSourceError(file: file, line: line, message: "\(EchoedInput.quoted(key)): no publicKeyHashes")
            }
            var pins: [Pin] = []
            for hash in hashes {
                do {
                    pins.append(try Pin.parse("sha256/" + hash))
                } catch {
                    throw ClientSourceError(file: file, line: line, message: "\(EchoedInput.quoted(hash)): \(error)")
                }
            }
            if Set(pins).count < 2 {
                imported.notes.append(
                    ClientSourceNote(
                        origin: origin, message: "\(domain): fewer than two hashes: iOS (TrustKit) refuses this configuration"))
            }
            imported.rules.append(
                ClientPinRule(domain: include ? "**." + domain : domain, pins: pins, origin: origin))
        }
    }
}

/// Walks a source's tokens through object and array literals.
struct LiteralCursor {
    let tokens: [SourceTokens.Token]
    let constants: [String: String?]
    var index = 0

    var line: Int { index < tokens.count ? tokens[index].line : (tokens.last?.line ?? 0) }

    private func isPunctuation(_ character: Character, at position: Int) -> Bool {
        position < tokens.count && tokens[position].kind == .punctuation(character.asciiValue ?? 0)
    }

    mutating func take(_ character: Character) -> Bool {
        guard isPunctuation(character, at: index) else { return false }
        index += 1
        return true
    }

    mutating func skipComma() { _ = take(",") }

    /// The position after `name(` of the next such call, from `index` on.
    mutating func next(call name: String) -> Int? {
        while index + 1 < tokens.count {
            defer { index += 1 }
            if tokens[index].kind == .name(name), isPunctuation("(", at: index + 1) { return index + 2 }
        }
        return nil
    }

    /// An object key: a name or a string; nil at the object's end.
    mutating func key() -> String? {
        guard index < tokens.count else { return nil }
        switch tokens[index].kind {
        case .name(let name):
            index += 1
            return name
        case .string(let value, template: false):
            index += 1
            return value
        default:
            return nil
        }
    }

    mutating func boolean() -> Bool? {
        guard index < tokens.count else { return nil }
        switch tokens[index].kind {
        case .name("true"):
            index += 1
            return true
        case .name("false"):
            index += 1
            return false
        default:
            skipValue()
            return nil
        }
    }

    /// A string literal or a constant of the file.
    mutating func string() -> String? {
        guard index < tokens.count else { return nil }
        switch tokens[index].kind {
        case .string(let value, template: false):
            index += 1
            return value
        case .name(let name):
            guard let constant = constants[name], let value = constant else { return nil }
            index += 1
            return value
        default:
            return nil
        }
    }

    /// `[a, b, …]` of strings; nil (the list skipped) when any is not one.
    mutating func strings() -> [String]? {
        guard take("[") else {
            skipValue()
            return nil
        }
        var values: [String] = []
        var complete = true
        while index < tokens.count, !isPunctuation("]", at: index) {
            if let value = string() {
                values.append(value)
                skipComma()
            } else {
                complete = false
                let before = index
                skipValue()
                skipComma()
                // A closing bracket of another kind ends the list unread.
                if index == before { break }
            }
        }
        _ = take("]")
        return complete ? values : nil
    }

    /// Past one value, brackets balanced, up to the `,` or closing bracket
    /// that ends it.
    mutating func skipValue() {
        var depth = 0
        while index < tokens.count {
            if case .punctuation(let byte) = tokens[index].kind {
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                    if depth == 0 { return }
                    depth -= 1
                case UInt8(ascii: ",") where depth == 0: return
                default: break
                }
            }
            index += 1
        }
    }
}
