import Foundation
import PinwatchCore

/// react-native-ssl-manager's `ssl_config.json`: `sha256Keys` (host →
/// `["sha256/…", …]`) and the optional `domains` (host →
/// `{enforcePinning, expirationDate, includeSubdomains}`), with the
/// file-wide `enforcePinning` and `expiration`.
///
/// Its rules, from the library: a host includes its subdomains at any
/// depth unless `includeSubdomains` is false (on Android the patterns
/// `host` and `**.host` of one OkHttp `CertificatePinner`, any pin of any
/// matching pattern passing); `enforcePinning: false` reports without
/// refusing; after `expirationDate` (the day itself still enforced) the
/// host is not pinned.
package enum ReactNativeSSLManagerImporter {
    package static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        guard let root = try PropertyListDocument.read(bytes, file: file, binary: false) as? [String: Any] else {
            throw ClientSourceError(file: file, message: "the top level is not an object")
        }
        guard let keys = root["sha256Keys"] as? [String: Any] else {
            throw ClientSourceError(
                file: file, entry: "sha256Keys", message: "missing or not an object: not a react-native-ssl-manager configuration")
        }
        var imported = ImportedPins(file: file, format: .rnSSLManager, rules: [])
        let everyEnforced = try flag(root["enforcePinning"], entry: "enforcePinning", file: file) ?? true
        let everyExpiration = try day(root["expiration"], entry: "expiration", file: file)
        let options = root["domains"] as? [String: Any] ?? [:]
        for name in keys.keys.sorted() {
            let entry = "sha256Keys." + name
            let domain = name.lowercased()
            guard HostNameCheck.problem(domain) == nil else {
                throw ClientSourceError(file: file, entry: entry, message: "\(EchoedInput.quoted(name)) is not a host name")
            }
            guard let list = keys[name] as? [Any] else {
                throw ClientSourceError(file: file, entry: entry, message: "not an array of \"sha256/…\" pins")
            }
            var pins: [Pin] = []
            for (index, element) in list.enumerated() {
                guard let text = element as? String else {
                    throw ClientSourceError(file: file, entry: "\(entry)[\(index)]", message: "is not a string")
                }
                do {
                    pins.append(try Pin.parse(text))
                } catch {
                    throw ClientSourceError(file: file, entry: "\(entry)[\(index)]", message: "\(EchoedInput.quoted(text)): \(error)")
                }
            }
            // The 1.0 format's `domains` named environments with strings.
            let settings = options[name] as? [String: Any] ?? [:]
            let optionEntry = "domains." + name
            let include = try flag(settings["includeSubdomains"], entry: optionEntry + ".includeSubdomains", file: file) ?? true
            let enforced =
                try flag(settings["enforcePinning"], entry: optionEntry + ".enforcePinning", file: file) ?? everyEnforced
            let expiration = try day(settings["expirationDate"], entry: optionEntry + ".expirationDate", file: file) ?? everyExpiration
            if !enforced {
                imported.notes.append(
                    ClientSourceNote(origin: "\(file): \(entry)", message: "enforcePinning is false: failures are reported, not refused"))
            }
            imported.rules.append(
                ClientPinRule(
                    domain: domain, includeSubdomains: include, pins: pins, expiration: expiration, enforced: enforced,
                    origin: "\(file): \(entry)"))
        }
        return imported
    }

    private static func flag(_ value: Any?, entry: String, file: String) throws(ClientSourceError) -> Bool? {
        guard let value else { return nil }
        guard let bool = value as? Bool else { throw ClientSourceError(file: file, entry: entry, message: "expected true or false") }
        return bool
    }

    /// The library enforces through the day it names: the end of it.
    private static func day(_ value: Any?, entry: String, file: String) throws(ClientSourceError) -> Date? {
        guard let value else { return nil }
        guard let text = value as? String, let date = ImportDates.day(text) else {
            throw ClientSourceError(file: file, entry: entry, message: "expected a YYYY-MM-DD date")
        }
        return date.addingTimeInterval(86_400)
    }
}
