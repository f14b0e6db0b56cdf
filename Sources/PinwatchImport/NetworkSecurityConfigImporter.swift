import Foundation
import PinwatchCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Android's `res/xml/network_security_config.xml`: each `<domain-config>`
/// with its `<domain>`s and `<pin-set>`, nested configs inheriting the
/// pin-set of their parent; `<debug-overrides>` ignored (release builds
/// do not use it).
public enum NetworkSecurityConfigImporter {
    public static func read(_ bytes: [UInt8], file: String) throws(ClientSourceError) -> ImportedPins {
        try XMLSafety.requireUTF8(bytes, file: file)
        try XMLSafety.refuseDeclarations(in: bytes, file: file)
        let reader = Reader(file: file)
        let parser = XMLParser(data: Data(bytes))
        // Entities are neither declared (refused above) nor fetched.
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let failure = reader.failure { throw failure }
        // FoundationXML on Linux can report success and set parserError.
        if !parsed || parser.parserError != nil {
            throw ClientSourceError(file: file, line: parser.lineNumber, message: XMLSafety.describe(parser.parserError))
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
    }

    private struct PinSetElement {
        var line: Int
        var expiration: Date?
        var pins: [Pin] = []
    }

    private final class Reader: NSObject, XMLParserDelegate {
        let file: String
        var notes: [ClientSourceNote] = []
        var failure: ClientSourceError?
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

        init(file: String) { self.file = file }

        /// A nested config without a pin-set of its own uses its nearest
        /// ancestor's, wherever in the parent that pin-set was written.
        func rules() -> [ClientPinRule] {
            configs.flatMap { config -> [ClientPinRule] in
                var effective = config.pinSet
                var parent = config.parent
                while effective == nil, let index = parent {
                    effective = configs[index].pinSet
                    parent = configs[index].parent
                }
                guard let effective else { return [] }
                return config.domains.map { domain in
                    ClientPinRule(
                        domain: domain.name, includeSubdomains: domain.includeSubdomains, pins: effective.pins,
                        expiration: effective.expiration, origin: "\(file):\(domain.line)")
                }
            }
        }

        private func fail(_ parser: XMLParser, _ message: String, line: Int? = nil) {
            guard failure == nil else { return }
            failure = ClientSourceError(file: file, line: line ?? parser.lineNumber, message: message)
            parser.abortParsing()
        }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            path.append(name)
            text = ""
            if ignoredDepth > 0 || name == "debug-overrides" {
                ignoredDepth += 1
                return
            }
            let line = parser.lineNumber
            switch name {
            case "network-security-config":
                guard path.count == 1 else { return fail(parser, "<network-security-config> inside another element") }
                sawRoot = true
            case "domain-config":
                guard sawRoot else { return fail(parser, "<domain-config> outside <network-security-config>") }
                configs.append(DomainConfig(line: line, parent: open.last))
                open.append(configs.count - 1)
            case "domain":
                domainLine = line
                domainIncludes = attributes["includeSubdomains"]?.lowercased() == "true"
            case "pin-set":
                guard let current = open.last else {
                    return fail(parser, "<pin-set> outside a <domain-config> (Android allows pins only per domain)")
                }
                guard configs[current].pinSet == nil else { return fail(parser, "a second <pin-set> in one <domain-config>") }
                var set = PinSetElement(line: line)
                if let expiration = attributes["expiration"] {
                    guard let date = ImportDates.day(expiration) else {
                        return fail(parser, "expiration \(EchoedInput.quoted(expiration)) is not a yyyy-MM-dd date")
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

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
            guard text.utf8.count <= 4096 else { return fail(parser, "element text longer than 4 KiB") }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
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
            case "domain":
                guard let current = open.last else { return fail(parser, "<domain> outside a <domain-config>", line: domainLine) }
                let domain = value.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
                guard !domain.isEmpty, HostNameCheck.problem(domain) == nil else {
                    return fail(parser, "domain \(EchoedInput.quoted(value)) is not a host name", line: domainLine)
                }
                configs[current].domains.append((domain, domainIncludes, domainLine))
            case "pin":
                guard let current = open.last, configs[current].pinSet != nil else {
                    return fail(parser, "<pin> outside a <pin-set>", line: pinLine)
                }
                guard let digest = pinDigest else {
                    return fail(parser, "<pin> without digest= (Android requires digest=\"SHA-256\")", line: pinLine)
                }
                guard digest.uppercased() == "SHA-256" else {
                    return fail(parser, "unknown digest \(EchoedInput.quoted(digest)) (Android supports SHA-256 only)", line: pinLine)
                }
                do {
                    let pin = try Pin.parse("sha256/" + value)
                    configs[current].pinSet?.pins.append(pin)
                } catch {
                    return fail(parser, "pin \(EchoedInput.quoted(value)): \(error)", line: pinLine)
                }
            case "domain-config":
                guard let current = open.popLast() else { return }
                if configs[current].domains.isEmpty {
                    return fail(parser, "<domain-config> without a <domain>", line: configs[current].line)
                }
            default:
                break
            }
        }
    }
}
