extension Pin {
    /// Parses one pin in any form of DESIGN §3 except `file:`.
    ///
    /// The text kept on the pin is the trimmed input, so reports show the
    /// pin exactly as the user (and the shipped client) wrote it.
    public static func parse(_ text: String) throws(PinParseError) -> Pin {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        if let digest = try hpkpDigest(trimmed) {
            return Pin(kind: .spki, digest: digest, text: trimmed)
        }
        if trimmed.hasPrefix("sha256/") {
            let digest = try decodeBase64(String(trimmed.dropFirst("sha256/".count)))
            return Pin(kind: .spki, digest: digest, text: trimmed)
        }
        if trimmed.hasPrefix("sha1/") {
            let digest = try decodeBase64(String(trimmed.dropFirst("sha1/".count)), length: 20)
            return Pin(kind: .spkiSHA1, digest: digest, text: trimmed)
        }
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw .unknownForm(trimmed)
        }
        let prefix = trimmed[..<colon].lowercased()
        let value = String(trimmed[trimmed.index(after: colon)...]).trimmingWhitespace()
        let kind: Kind
        switch prefix {
        case "spki": kind = .spki
        case "key": kind = .key
        case "cert": kind = .cert
        case "file": throw .fileForm
        default: throw .unknownForm(prefix + ":")
        }
        return Pin(kind: kind, digest: try decodeHexOrBase64(value), text: trimmed)
    }

    /// `pin-sha256="BASE64"` as a Public-Key-Pins header (RFC 7469) writes
    /// it, pasted from a server's configuration: the same SPKI digest as
    /// `sha256/BASE64`. Nil when the text is not in that form.
    private static func hpkpDigest(_ text: String) throws(PinParseError) -> [UInt8]? {
        let name = "pin-sha256="
        guard text.lowercased().hasPrefix(name) else { return nil }
        var value = Substring(text.dropFirst(name.count))
        if value.hasSuffix(";") { value = value.dropLast() }
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
        return try decodeBase64(String(value))
    }

    /// A SHA-256 in base64 never consists of hex digits only (44 characters
    /// ending in `=`), so a value of hex digits and colons is read as hex.
    private static func decodeHexOrBase64(_ value: String) throws(PinParseError) -> [UInt8] {
        let looksHex = !value.isEmpty && value.allSatisfy { $0 == ":" || ($0.isASCII && $0.isHexDigit) }
        return looksHex ? try decodeHex(value) : try decodeBase64(value)
    }

    private static func decodeBase64(_ value: String, length: Int = 32) throws(PinParseError) -> [UInt8] {
        guard let bytes = PinText.decodeBase64(value) else { throw .badBase64 }
        guard bytes.count == length else { throw length == 32 ? .wrongLength(bytes.count) : .wrongSHA1Length(bytes.count) }
        return bytes
    }

    private static func decodeHex(_ value: String) throws(PinParseError) -> [UInt8] {
        guard let bytes = PinText.decodeHex(value) else { throw .badHex }
        guard bytes.count == 32 else { throw .wrongLength(bytes.count) }
        return bytes
    }
}

extension String {
    /// Spaces, tabs and newlines around YAML values and pins carry no meaning.
    func trimmingWhitespace() -> String {
        // Nearly every value read starts and ends with a printable ASCII
        // byte: Unicode's whitespace property is looked up only otherwise.
        if let first = utf8.first, let last = utf8.last, Self.isPrintableASCII(first), Self.isPrintableASCII(last) {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    private static func isPrintableASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}
