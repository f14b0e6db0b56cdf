import Foundation
import PinwatchCore

/// Pins written as strings in code, shell and headers: OkHttp's
/// `CertificatePinner.Builder().add("host", "sha256/…")`, curl's
/// `--pinnedpubkey 'sha256//A;sha256//B'` and HPKP's
/// `Public-Key-Pins: pin-sha256="…"; max-age=…`.
///
/// A curl or HPKP pin that names no host gets the domain "" and the
/// client entry's `host:` (or `import --host`) fills it in.
package enum PinStringImporter {
    package static func read(_ text: String, file: String, format: ClientFormat) throws(ClientSourceError) -> ImportedPins {
        let lines = SourceLines.split(text)
        var imported = ImportedPins(file: file, format: format, rules: [])
        switch format {
        case .okhttp: try okHttp(lines, into: &imported)
        case .curl: try curl(lines, into: &imported)
        case .hpkp: try hpkp(lines, into: &imported)
        default: throw ClientSourceError(file: file, message: "\(format.title) is not a pin-string format")
        }
        guard !imported.rules.isEmpty else {
            throw ClientSourceError(file: file, message: "no \(format.title) pins found")
        }
        return imported
    }

    /// Which of the three a text holds, if any.
    package static func detect(_ text: String) -> ClientFormat? {
        if text.range(of: "public-key-pins", options: .caseInsensitive) != nil { return .hpkp }
        if text.contains("--pinnedpubkey") || text.contains("CURLOPT_PINNEDPUBLICKEY") { return .curl }
        if text.contains("CertificatePinner") || text.contains(".add(") && (text.contains("\"sha256/") || text.contains("\"sha1/")) {
            return .okhttp
        }
        return nil
    }

    // MARK: OkHttp

    /// Every `.add(` call whose arguments are string literals or string
    /// constants of the same file, across line breaks: the first is the
    /// pattern, the rest are pins. Calls that stay unresolved are named.
    private static func okHttp(_ lines: [String], into imported: inout ImportedPins) throws(ClientSourceError) {
        let file = imported.file
        let source = OkHttpPinCalls(Array(lines.joined(separator: "\n").utf8))
        for call in source.calls {
            let pattern = call.values[0].lowercased()
            guard pattern.contains("."), HostNameCheck.problem(pattern.replacingOccurrences(of: "*", with: "x")) == nil else {
                throw ClientSourceError(
                    file: file, line: call.line, message: "pattern \(EchoedInput.quoted(call.values[0])) is not a host pattern")
            }
            var pins: [Pin] = []
            for written in call.values.dropFirst() {
                pins.append(try pin(written, file: file, line: call.line, note: &imported.notes))
            }
            imported.rules.append(ClientPinRule(domain: pattern, pins: pins, origin: "\(file):\(call.line)"))
        }
        func notConstant(_ arguments: [String]) -> String {
            arguments.map(EchoedInput.quoted).joined(separator: ", ")
                + (arguments.count == 1 ? " is not a string constant" : " are not string constants") + " of this file"
        }
        for call in source.unresolved {
            imported.notes.append(
                ClientSourceNote(origin: "\(file):\(call.line)", message: "pins not read: " + notConstant(call.arguments)))
        }
        if imported.rules.isEmpty, let first = source.unresolved.first {
            throw ClientSourceError(
                file: file, line: first.line, message: "no OkHttp CertificatePinner pins found: " + notConstant(first.arguments))
        }
    }

    // MARK: curl

    private static func curl(_ lines: [String], into imported: inout ImportedPins) throws(ClientSourceError) {
        let file = imported.file
        for (offset, line) in lines.enumerated() {
            guard let value = curlPinValue(line) else { continue }
            let number = offset + 1
            var pins: [Pin] = []
            for part in value.split(separator: ";") {
                let written = part.trimmingCharacters(in: .whitespaces)
                guard written.hasPrefix("sha256//") else {
                    imported.notes.append(
                        ClientSourceNote(
                            origin: "\(file):\(number)",
                            message: "\(EchoedInput.quoted(written)) is a key file, not a hash: pin it with `pinwatch pin FILE`"))
                    continue
                }
                pins.append(try pin("sha256/" + written.dropFirst("sha256//".count), file: file, line: number, note: &imported.notes))
            }
            guard !pins.isEmpty else { continue }
            let host = urlHost(in: line) ?? ""
            imported.rules.append(ClientPinRule(domain: host, pins: pins, origin: "\(file):\(number)"))
        }
    }

    private static func curlPinValue(_ line: String) -> String? {
        for marker in ["--pinnedpubkey", "CURLOPT_PINNEDPUBLICKEY"] {
            guard let range = line.range(of: marker) else { continue }
            var rest = line[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "," || $0 == "\t" }
            guard let quote = rest.first else { return nil }
            if quote == "'" || quote == "\"" {
                rest = rest.dropFirst()
                return rest.firstIndex(of: quote).map { String(rest[..<$0]) }
            }
            return String(rest.prefix { !$0.isWhitespace })
        }
        return nil
    }

    private static func urlHost(in line: String) -> String? {
        guard let scheme = line.range(of: "https://") else { return nil }
        let authority = line[scheme.upperBound...].prefix { !"/ '\"?#`()<>".contains($0) }
        let withoutUser = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        var host = (try? HostPort(parsing: withoutUser))?.host
        if host == nil, let colon = withoutUser.lastIndex(of: ":"), !withoutUser[colon...].contains("]") {
            // `https://localhost:%PORT/` in a test script: the port is filled
            // in later, the host is written.
            host = (try? HostPort(parsing: String(withoutUser[..<colon])))?.host
        }
        // `%HOST%` or `$HOST` is a placeholder too: the entry's host: names it.
        guard let host, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:".contains($0)) }) else { return nil }
        return host.lowercased()
    }

    // MARK: HPKP

    private static func hpkp(_ lines: [String], into imported: inout ImportedPins) throws(ClientSourceError) {
        let file = imported.file
        var hostHeader: String?
        for line in lines {
            let field = line.drop { " \t>`*-".contains($0) }
            guard field.lowercased().hasPrefix("host:") else { continue }
            hostHeader = (try? HostPort(parsing: String(field.dropFirst(5).prefix { $0 != "`" })))?.host.lowercased()
        }
        for (offset, line) in lines.enumerated() {
            guard let (reportOnly, value) = hpkpHeader(in: line) else { continue }
            let number = offset + 1
            var pins: [Pin] = []
            var includeSubdomains = false
            var maxAge: Int?
            for directive in value.split(separator: ";") {
                let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                // A bare "=" splits into nothing (found by fuzzing).
                guard let name = parts.first?.lowercased() else { continue }
                let value = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : ""
                switch name {
                case "pin-sha256": pins.append(try pin("sha256/" + value, file: file, line: number, note: &imported.notes))
                case "pin-sha1": pins.append(try pin("sha1/" + value, file: file, line: number, note: &imported.notes))
                case "includesubdomains": includeSubdomains = true
                case "max-age": maxAge = Int(value)
                case "report-uri", "": break
                default:
                    if name.hasPrefix("pin-") {
                        throw ClientSourceError(
                            file: file, line: number, message: "unknown digest \(EchoedInput.quoted(name)) (HPKP defines pin-sha256)")
                    }
                }
            }
            guard !pins.isEmpty else { throw ClientSourceError(file: file, line: number, message: "a Public-Key-Pins header without pins") }
            if maxAge == nil {
                imported.notes.append(ClientSourceNote(origin: "\(file):\(number)", message: "no max-age: browsers ignore this header"))
            }
            if reportOnly {
                imported.notes.append(
                    ClientSourceNote(origin: "\(file):\(number)", message: "Report-Only: failures are reported, not refused"))
            }
            imported.rules.append(
                ClientPinRule(
                    domain: hostHeader ?? "", includeSubdomains: includeSubdomains, pins: pins, enforced: !reportOnly,
                    origin: "\(file):\(number)"))
        }
    }

    /// `Public-Key-Pins[-Report-Only]: …` where a line carries it: first in
    /// a response head, or quoted in a document (in backticks in prose, an
    /// indented or fenced block, a list item), its value ending at the
    /// closing backtick or quote.
    private static func hpkpHeader(in line: String) -> (reportOnly: Bool, value: Substring)? {
        var searchFrom = line.startIndex
        while let name = line.range(of: "public-key-pins", options: .caseInsensitive, range: searchFrom..<line.endIndex) {
            searchFrom = name.upperBound
            if name.lowerBound > line.startIndex {
                let before = line[line.index(before: name.lowerBound)]
                guard !(before.isLetter || before.isNumber || before == "-") else { continue }
            }
            var rest = line[name.upperBound...]
            // The prefix only: lowercasing the rest of a long line at each
            // mention would be quadratic.
            let reportOnly = rest.prefix(12).lowercased() == "-report-only"
            if reportOnly { rest = rest.dropFirst("-report-only".count) }
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard rest.first == ":" else { continue }
            return (reportOnly, rest.dropFirst().prefix { $0 != "`" && $0 != "'" })
        }
        return nil
    }

    // MARK: pins

    private static func pin(_ text: String, file: String, line: Int, note notes: inout [ClientSourceNote]) throws(ClientSourceError) -> Pin
    {
        let pin: Pin
        do {
            pin = try Pin.parse(text)
        } catch {
            throw ClientSourceError(file: file, line: line, message: "pin \(EchoedInput.quoted(text)): \(error)")
        }
        guard pin.kind == .spki || pin.kind == .spkiSHA1 else {
            throw ClientSourceError(file: file, line: line, message: "pin \(EchoedInput.quoted(text)): expected sha256/ or sha1/")
        }
        if pin.kind == .spkiSHA1 {
            notes.append(
                ClientSourceNote(
                    origin: "\(file):\(line)",
                    message: "\(pin.text): SHA-1 pins are not supported by modern clients (OkHttp 3+, Android, TrustKit take SHA-256)"))
        }
        return pin
    }
}
