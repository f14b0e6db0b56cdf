import Foundation
import PinwatchCore

/// Android's `res/xml/network_security_config.xml`: each `<domain-config>`
/// with its `<domain>`s and `<pin-set>`, nested configs inheriting the
/// pin-set of their parent; `<certificateTransparency enabled=…>` in
/// `<base-config>` or a `<domain-config>`, a domain's own beating its
/// parent's and base-config's, as Android resolves it; `<debug-overrides>`
/// ignored (release builds do not use it).
package enum NetworkSecurityConfigImporter {
    package static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        try XMLSafety.requireUTF8(bytes, file: file)
        try XMLSafety.refuseDeclarations(in: bytes, file: file)
        let reader = Reader(file: file)
        try XMLStream.read(bytes, file: file) { event throws(ClientSourceError) in
            switch event {
            case .start(let name, let attributes, let line): try reader.start(name, attributes: attributes, line: line)
            case .text(let text, let line): try reader.characters(text, line: line)
            case .end(let name): try reader.end(name)
            }
        }
        guard reader.sawRoot else {
            throw ClientSourceError(file: file, message: "no <network-security-config> element: not an Android network security config")
        }
        return ImportedPins(file: file, format: .nsc, rules: reader.rules(), notes: reader.notes)
    }

    /// One `<domain-config>` as read.
    private struct DomainConfig {
        var line: Int
        /// Index of the enclosing domain-config in `configs`.
        var parent: Int?
        var domains: [(name: String, includeSubdomains: Bool, line: Int)] = []
        /// Its own `<pin-set>`, nil to inherit the parent's.
        var pinSet: PinSetElement?
        /// Its own `<certificateTransparency enabled=…>`, nil to inherit.
        var certificateTransparency: Bool?
    }

    private struct PinSetElement {
        var line: Int
        var expiration: Date?
        var pins: [Pin] = []
    }

    private final class Reader {
        let file: String
        var notes: [ClientSourceNote] = []
        var sawRoot = false
        /// Every domain-config, in document order.
        private var configs: [DomainConfig] = []
        /// Indexes of the open ones, innermost last.
        private var open: [Int] = []
        private var path: [String] = []
        private var text = ""
        private var pinDigest: String?
        private var pinLine = 0
        private var domainIncludes = false
        private var domainLine = 0
        private var ignoredDepth = 0
        private var inBaseConfig = false
        /// `<base-config>`'s `<certificateTransparency enabled=…>`.
        private var baseCertificateTransparency: Bool?

        init(file: String) { self.file = file }

        /// A nested config without a pin-set of its own uses its nearest
        /// ancestor's, wherever in the parent that pin-set was written; so
        /// with Certificate Transparency, base-config's last. A config with
        /// no pin-set but CT required still yields rules: the app refuses
        /// a leaf without SCTs there, pins or not.
        func rules() -> [ClientPinRule] {
            configs.flatMap { config -> [ClientPinRule] in
                let effective = inherited(from: config, \.pinSet)
                let transparency = inherited(from: config, \.certificateTransparency) ?? baseCertificateTransparency
                guard effective != nil || transparency == true else { return [] }
                return config.domains.map { domain in
                    var rule = ClientPinRule(
                        domain: domain.name, includeSubdomains: domain.includeSubdomains, pins: effective?.pins ?? [],
                        expiration: effective?.expiration, origin: "\(file):\(domain.line)")
                    rule.certificateTransparency = transparency
                    return rule
                }
            }
        }

        private func inherited<Value>(from config: DomainConfig, _ field: KeyPath<DomainConfig, Value?>) -> Value? {
            var value = config[keyPath: field]
            var parent = config.parent
            while value == nil, let index = parent {
                value = configs[index][keyPath: field]
                parent = configs[index].parent
            }
            return value
        }

        private func failure(_ message: String, line: Int) -> ClientSourceError {
            ClientSourceError(file: file, line: line, message: message)
        }

        func start(_ name: String, attributes: [String: String], line: Int) throws(ClientSourceError) {
            path.append(name)
            text = ""
            if ignoredDepth > 0 || name == "debug-overrides" {
                ignoredDepth += 1
                return
            }
            switch name {
            case "network-security-config":
                guard path.count == 1 else { throw failure("<network-security-config> inside another element", line: line) }
                sawRoot = true
            case "base-config":
                guard sawRoot, open.isEmpty else { throw failure("<base-config> outside <network-security-config>", line: line) }
                inBaseConfig = true
            case "certificateTransparency":
                try certificateTransparency(attributes, line: line)
            case "domain-config":
                guard sawRoot else { throw failure("<domain-config> outside <network-security-config>", line: line) }
                configs.append(DomainConfig(line: line, parent: open.last))
                open.append(configs.count - 1)
            case "domain":
                domainLine = line
                domainIncludes = attributes["includeSubdomains"]?.lowercased() == "true"
            case "pin-set":
                guard let current = open.last else {
                    throw failure("<pin-set> outside a <domain-config> (Android allows pins only per domain)", line: line)
                }
                guard configs[current].pinSet == nil else { throw failure("a second <pin-set> in one <domain-config>", line: line) }
                var set = PinSetElement(line: line)
                if let expiration = attributes["expiration"] {
                    guard let date = ImportDates.day(expiration) else {
                        throw failure("expiration \(EchoedInput.quoted(expiration)) is not a yyyy-MM-dd date", line: line)
                    }
                    set.expiration = date
                }
                configs[current].pinSet = set
            case "pin":
                pinLine = line
                pinDigest = attributes["digest"]
            case "certificates":
                if attributes["overridePins"]?.lowercased() == "true" {
                    let source = attributes["src"] ?? "?"
                    notes.append(
                        ClientSourceNote(
                            origin: "\(file):\(line)",
                            message: "certificates src=\(EchoedInput.quoted(source)) overridePins=true: chains to those CAs bypass the pins"
                                + (source == "user" ? " (a user-installed proxy CA is accepted)" : "")))
                }
            default:
                break
            }
        }

        /// `enabled` is required and boolean, as Android's parser has it.
        private func certificateTransparency(_ attributes: [String: String], line: Int) throws(ClientSourceError) {
            let enabled: Bool
            switch attributes["enabled"]?.lowercased() {
            case "true": enabled = true
            case "false": enabled = false
            case nil: throw failure("<certificateTransparency> without enabled=\"true\" or \"false\"", line: line)
            case let other?: throw failure("certificateTransparency enabled=\(EchoedInput.quoted(other)) is not true or false", line: line)
            }
            if let current = open.last {
                guard configs[current].certificateTransparency == nil else {
                    throw failure("a second <certificateTransparency> in one <domain-config>", line: line)
                }
                configs[current].certificateTransparency = enabled
            } else if inBaseConfig {
                guard baseCertificateTransparency == nil else {
                    throw failure("a second <certificateTransparency> in <base-config>", line: line)
                }
                baseCertificateTransparency = enabled
            } else {
                throw failure("<certificateTransparency> outside <base-config> and <domain-config>", line: line)
            }
        }

        func characters(_ string: String, line: Int) throws(ClientSourceError) {
            text += string
            guard text.utf8.count <= 4096 else { throw failure("element text longer than 4 KiB", line: line) }
        }

        func end(_ name: String) throws(ClientSourceError) {
            defer {
                path.removeLast()
                text = ""
            }
            if ignoredDepth > 0 {
                ignoredDepth -= 1
                return
            }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "base-config":
                inBaseConfig = false
            case "domain":
                guard let current = open.last else { throw failure("<domain> outside a <domain-config>", line: domainLine) }
                let domain = value.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
                guard !domain.isEmpty, HostNameCheck.problem(domain) == nil else {
                    throw failure("domain \(EchoedInput.quoted(value)) is not a host name", line: domainLine)
                }
                configs[current].domains.append((domain, domainIncludes, domainLine))
            case "pin":
                guard let current = open.last, configs[current].pinSet != nil else {
                    throw failure("<pin> outside a <pin-set>", line: pinLine)
                }
                guard let digest = pinDigest else {
                    throw failure("<pin> without digest= (Android requires digest=\"SHA-256\")", line: pinLine)
                }
                guard digest.uppercased() == "SHA-256" else {
                    throw failure("unknown digest \(EchoedInput.quoted(digest)) (Android supports SHA-256 only)", line: pinLine)
                }
                do {
                    let pin = try Pin.parse("sha256/" + value)
                    configs[current].pinSet?.pins.append(pin)
                } catch {
                    throw failure("pin \(EchoedInput.quoted(value)): \(error)", line: pinLine)
                }
            case "domain-config":
                guard let current = open.popLast() else { return }
                if configs[current].domains.isEmpty {
                    throw failure("<domain-config> without a <domain>", line: configs[current].line)
                }
            default:
                break
            }
        }
    }
}
