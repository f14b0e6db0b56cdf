import Foundation
import PinwatchCore

/// TrustKit's `TSKConfiguration`, from an Info.plist (XML) or a JSON
/// export: `TSKPinnedDomains` → `TSKPublicKeyHashes`,
/// `TSKIncludeSubdomains`, `TSKEnforcePinning`, `TSKExpirationDate`.
package enum TrustKitImporter {
    package static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        if TrustKitCodeLiteral.isCode(bytes) { return try readCode(bytes, file: file) }
        let root = try PropertyListDocument.read(bytes, file: file, binary: false)
        guard let dictionary = root as? [String: Any] else {
            throw ClientSourceError(file: file, message: "the top level is not a dictionary")
        }
        // An Info.plist holds the configuration under TSKConfiguration; an
        // export may be the configuration itself.
        let configuration: [String: Any]
        var keyPath = ""
        if let nested = dictionary["TSKConfiguration"] {
            guard let nested = nested as? [String: Any] else {
                throw ClientSourceError(file: file, entry: "TSKConfiguration", message: "is not a dictionary")
            }
            configuration = nested
            keyPath = "TSKConfiguration."
        } else {
            configuration = dictionary
        }
        guard let domains = configuration["TSKPinnedDomains"] as? [String: Any] else {
            if AppTransportSecurityImporter.pinnedDomains(in: dictionary) != nil {
                throw ClientSourceError(
                    file: file, entry: "NSAppTransportSecurity.NSPinnedDomains",
                    message: "Apple's own pins, not TrustKit's: read them as ats (--as ats, or ats: in clients:)")
            }
            throw ClientSourceError(
                file: file, entry: keyPath + "TSKPinnedDomains", message: "missing or not a dictionary: not a TrustKit configuration")
        }
        return try pins(domains, keyPath: keyPath, file: file)
    }

    /// Each domain of `TSKPinnedDomains` as a rule, whatever it was read from.
    static func pins(_ domains: [String: Any], keyPath: String, file: String, notes: [ClientSourceNote] = []) throws(ClientSourceError)
        -> ImportedPins
    {
        var rules: [ClientPinRule] = []
        var notes = notes
        for name in domains.keys.sorted() {
            let entry = keyPath + "TSKPinnedDomains." + name
            guard let settings = domains[name] as? [String: Any] else {
                throw ClientSourceError(file: file, entry: entry, message: "is not a dictionary")
            }
            let domain = name.lowercased()
            guard HostNameCheck.problem(domain) == nil else {
                throw ClientSourceError(file: file, entry: entry, message: "\(EchoedInput.quoted(name)) is not a host name")
            }
            guard let hashes = settings["TSKPublicKeyHashes"] as? [Any] else {
                throw ClientSourceError(file: file, entry: entry + ".TSKPublicKeyHashes", message: "missing or not an array")
            }
            var pins: [Pin] = []
            for (index, hash) in hashes.enumerated() {
                let hashEntry = "\(entry).TSKPublicKeyHashes[\(index)]"
                guard let text = hash as? String else {
                    throw ClientSourceError(file: file, entry: hashEntry, message: "is not a string")
                }
                do {
                    pins.append(try Pin.parse("sha256/" + text))
                } catch {
                    throw ClientSourceError(file: file, entry: hashEntry, message: "\(EchoedInput.quoted(text)): \(error)")
                }
            }
            if Set(pins).count < 2 {
                notes.append(
                    ClientSourceNote(
                        origin: "\(file): \(entry)",
                        message: "TrustKit requires at least two hashes, one a backup key (it refuses this configuration)"))
            }
            let include = try flag(settings["TSKIncludeSubdomains"], entry: entry + ".TSKIncludeSubdomains", file: file) ?? false
            let enforce = try flag(settings["TSKEnforcePinning"], entry: entry + ".TSKEnforcePinning", file: file) ?? true
            if !enforce {
                notes.append(
                    ClientSourceNote(origin: "\(file): \(entry)", message: "TSKEnforcePinning is false: failures are reported, not refused")
                )
            }
            var expiration: Date?
            if let value = settings["TSKExpirationDate"] {
                guard let text = value as? String, let date = ImportDates.day(text) else {
                    throw ClientSourceError(file: file, entry: entry + ".TSKExpirationDate", message: "expected a yyyy-MM-dd date")
                }
                expiration = date
            }
            rules.append(
                ClientPinRule(
                    domain: domain, includeSubdomains: include, pins: pins, expiration: expiration, enforced: enforce,
                    origin: "\(file): \(entry)"))
        }
        return ImportedPins(file: file, format: .trustkit, rules: rules, notes: notes)
    }

    private static func flag(_ value: Any?, entry: String, file: String) throws(ClientSourceError) -> Bool? {
        guard let value else { return nil }
        if let bool = value as? Bool { return bool }
        if let number = value as? NSNumber { return number.boolValue }
        throw ClientSourceError(file: file, entry: entry, message: "expected true or false")
    }
}
