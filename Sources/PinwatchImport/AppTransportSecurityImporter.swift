import Foundation
import PinwatchCore

/// Apple's pins in an Info.plist (XML or binary, or a JSON export):
/// `NSAppTransportSecurity` → `NSPinnedDomains` → domain →
/// `NSIncludesSubdomains`, `NSPinnedCAIdentities`, `NSPinnedLeafIdentities`,
/// each identity a `{SPKI-SHA256-BASE64: …}` dictionary.
///
/// Read as the Security framework reads it: what it skips (an identity
/// that is not a dictionary of base64 text, a domain that is not a
/// dictionary) is skipped here too, with a note, so the lists judged are
/// the lists the app enforces.
package enum AppTransportSecurityImporter {
    package static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        let root = try PropertyListDocument.read(bytes, file: file, binary: true)
        guard let dictionary = root as? [String: Any] else {
            throw ClientSourceError(file: file, message: "the top level is not a dictionary")
        }
        guard let found = pinnedDomains(in: dictionary) else {
            throw ClientSourceError(
                file: file, entry: "NSAppTransportSecurity.NSPinnedDomains",
                message: "missing or not a dictionary: not an App Transport Security pin configuration")
        }
        var imported = ImportedPins(file: file, format: .ats, rules: [])
        for name in found.domains.keys.sorted() {
            let entry = found.keyPath + "." + name
            let origin = "\(file): \(entry)"
            guard let settings = found.domains[name] as? [String: Any] else {
                imported.notes.append(ClientSourceNote(origin: origin, message: "is not a dictionary: ATS ignores it"))
                continue
            }
            let domain = name.lowercased()
            guard HostNameCheck.problem(domain) == nil else {
                imported.notes.append(
                    ClientSourceNote(
                        origin: origin, message: "\(EchoedInput.quoted(name)) is not a host name: ATS matches no host with it"))
                continue
            }
            var notes: [ClientSourceNote] = []
            let ca = identities(settings["NSPinnedCAIdentities"], entry: entry + ".NSPinnedCAIdentities", file: file, notes: &notes)
            let leaf = identities(
                settings["NSPinnedLeafIdentities"], entry: entry + ".NSPinnedLeafIdentities", file: file, notes: &notes)
            imported.notes += notes
            guard ca != nil || leaf != nil else {
                imported.notes.append(
                    ClientSourceNote(
                        origin: origin, message: "neither NSPinnedCAIdentities nor NSPinnedLeafIdentities: ATS does not pin it"))
                continue
            }
            let includes = settings["NSIncludesSubdomains"]
            if let includes, !(includes is Bool) {
                imported.notes.append(
                    ClientSourceNote(origin: origin + ".NSIncludesSubdomains", message: "not a boolean: ATS reads it as false"))
            }
            for (list, key) in [(ca, "NSPinnedCAIdentities"), (leaf, "NSPinnedLeafIdentities")] where list?.isEmpty == true {
                imported.notes.append(
                    ClientSourceNote(
                        origin: "\(origin).\(key)", message: "no identity: ATS refuses every chain for this domain"))
            }
            var seen = Set<Pin>()
            let pins = ((ca ?? []) + (leaf ?? [])).filter { seen.insert($0).inserted }
            imported.rules.append(
                ClientPinRule(
                    domain: domain, includeSubdomains: (includes as? Bool) == true, pins: pins, origin: origin,
                    identities: PinnedIdentities(ca: ca, leaf: leaf)))
        }
        return imported
    }

    /// `NSPinnedDomains` under `NSAppTransportSecurity` (an Info.plist), or
    /// at the top (an export of that dictionary).
    static func pinnedDomains(in dictionary: [String: Any]) -> (domains: [String: Any], keyPath: String)? {
        if let ats = dictionary["NSAppTransportSecurity"] as? [String: Any], let domains = ats["NSPinnedDomains"] as? [String: Any] {
            return (domains, "NSAppTransportSecurity.NSPinnedDomains")
        }
        if let domains = dictionary["NSPinnedDomains"] as? [String: Any] { return (domains, "NSPinnedDomains") }
        return nil
    }

    /// One identity list: nil when absent. A value that is not an array
    /// still pins the domain, with nothing allowed.
    private static func identities(_ value: Any?, entry: String, file: String, notes: inout [ClientSourceNote]) -> [Pin]? {
        guard let value else { return nil }
        guard let list = value as? [Any] else {
            notes.append(ClientSourceNote(origin: "\(file): \(entry)", message: "is not an array: ATS pins the domain with no identity"))
            return []
        }
        var pins: [Pin] = []
        for (index, element) in list.enumerated() {
            let origin = "\(file): \(entry)[\(index)]"
            guard let identity = element as? [String: Any], let text = identity["SPKI-SHA256-BASE64"] as? String else {
                notes.append(ClientSourceNote(origin: origin, message: "no SPKI-SHA256-BASE64 string: ATS skips this identity"))
                continue
            }
            guard let pin = try? Pin.parse("sha256/" + text) else {
                notes.append(
                    ClientSourceNote(
                        origin: origin, message: "\(EchoedInput.quoted(text)) is not a base64 SHA-256: it matches no key"))
                continue
            }
            if !pins.contains(pin) { pins.append(pin) }
        }
        return pins
    }
}
