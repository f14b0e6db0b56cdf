import PinwatchCore

extension TrustKitImporter {
    /// The keys that decide a domain's pins: one this file does not resolve
    /// leaves the domain out rather than judged with part of its pins.
    private static let decidingKeys: Set<String> = [
        "TSKPublicKeyHashes", "TSKIncludeSubdomains", "TSKEnforcePinning", "TSKExpirationDate",
    ]

    /// `kTSKPinnedDomains: […]` in Swift or Objective-C source. A domain
    /// with a name, key or value that is not a literal or string constant
    /// of the file is named in a note and left out; with none left, that
    /// is the error.
    static func readCode(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        let entry = "kTSKPinnedDomains"
        guard let literal = TrustKitCodeLiteral(bytes).pinnedDomains else {
            throw ClientSourceError(file: file, entry: entry, message: "no value after kTSKPinnedDomains: not a TrustKit configuration")
        }
        guard case .dictionary(let pairs) = literal else {
            throw ClientSourceError(file: file, entry: entry, message: "\(quoted(literal)) is not a dictionary literal")
        }
        var domains: [String: Any] = [:]
        var notes: [ClientSourceNote] = []
        var unresolved: [String] = []
        for (key, settings) in pairs {
            guard case .string(let name) = key else {
                unresolved.append(quoted(key))
                notes.append(
                    ClientSourceNote(
                        origin: "\(file): TSKPinnedDomains",
                        message: "a domain named \(quoted(key)), not a string constant of this file: not read"))
                continue
            }
            let missing = unresolvedDecidingValues(settings)
            guard missing.isEmpty else {
                unresolved += missing
                notes.append(
                    ClientSourceNote(
                        origin: "\(file): TSKPinnedDomains.\(name)",
                        message:
                            "not read: \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") not resolved in this file"))
                continue
            }
            domains[name] = propertyList(settings)
        }
        if domains.isEmpty, !unresolved.isEmpty {
            throw ClientSourceError(
                file: file, entry: entry,
                message: "no domain could be read: \(unresolved.joined(separator: ", ")) not resolved in this file")
        }
        return try pins(domains, keyPath: "", file: file, notes: notes)
    }

    private static func unresolvedDecidingValues(_ settings: TrustKitCodeLiteral.Value) -> [String] {
        guard case .dictionary(let pairs) = settings else { return [quoted(settings)] }
        return pairs.flatMap { pair -> [String] in
            guard case .string(let key) = pair.key else { return [quoted(pair.key)] }
            return decidingKeys.contains(key) ? unresolvedValues(pair.value) : []
        }
    }

    private static func unresolvedValues(_ value: TrustKitCodeLiteral.Value) -> [String] {
        switch value {
        case .string, .bool: return []
        case .array(let elements): return elements.flatMap(unresolvedValues)
        case .dictionary(let pairs): return pairs.flatMap { unresolvedValues($0.key) + unresolvedValues($0.value) }
        case .unresolved: return [quoted(value)]
        }
    }

    /// What PropertyListSerialization would have given for the literal.
    private static func propertyList(_ value: TrustKitCodeLiteral.Value) -> Any {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag
        case .array(let elements): return elements.map(propertyList)
        case .dictionary(let pairs):
            var dictionary: [String: Any] = [:]
            for pair in pairs {
                if case .string(let key) = pair.key { dictionary[key] = propertyList(pair.value) }
            }
            return dictionary
        case .unresolved(let written): return written
        }
    }

    private static func quoted(_ value: TrustKitCodeLiteral.Value) -> String {
        switch value {
        case .string(let text), .unresolved(let text): return EchoedInput.quoted(text)
        case .bool(let flag): return String(flag)
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        }
    }
}
