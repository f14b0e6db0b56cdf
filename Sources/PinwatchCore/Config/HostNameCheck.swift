/// What a host name, SNI or connect address may contain, checked the same
/// way for the configuration, the command line and `/probe`.
public enum HostNameCheck {
    /// Why `name` cannot be dialled or sent as SNI, or nil. A name is an IP
    /// address or letters (any script: an IDN), digits, `-`, `_` and `.`;
    /// anything else would only reach a label, a log or a shell. A control
    /// character is refused above all: OpenSSL's name check stops at a NUL,
    /// so `good.test\0.attacker.example` would pass as good.test.
    public static func problem(_ name: String) -> String? {
        // The usual name is ASCII, checked byte by byte; Unicode properties
        // are looked up only for the rest, once per host of a configuration.
        let isASCII = name.utf8.allSatisfy { $0 < 0x80 }
        let hasControl =
            isASCII
            ? name.utf8.contains { $0 < 0x20 || $0 == 0x7F }
            : name.unicodeScalars.contains(where: TerminalText.isControl)
        if hasControl {
            return "\(EchoedInput.quoted(name)) contains a control character; a host name never does"
        }
        if name.utf8.count > 253 {
            return "\(EchoedInput.quoted(name)) is longer than a host name can be (253 characters)"
        }
        if let colon = name.unicodeScalars.firstIndex(of: ":") {
            // Only an IPv6 address has a colon (a port is written apart).
            if IPNetwork.addressBytes(name)?.count == 16 { return nil }
            return refusal(name, at: colon, "(only an IPv6 address has one; give a port as port:)")
        }
        let offending =
            isASCII
            ? name.unicodeScalars.firstIndex { !isNameASCII(UInt8($0.value)) }
            : name.unicodeScalars.firstIndex { $0.isASCII ? !isNameASCII(UInt8($0.value)) : !isNameLetter($0) }
        if let offending { return refusal(name, at: offending, "(a host name has letters, digits, '-', '_' and '.')") }
        return labelProblem(name)
    }

    /// The shape a resolver would otherwise guess at: no empty label (one
    /// trailing dot, a fully qualified name's, aside), no label starting or
    /// ending with '-', and a last label that is not all digits unless the
    /// whole is an IPv4 address (`1.2.3.4.5` and `010.1.1.1` are neither).
    private static func labelProblem(_ name: String) -> String? {
        if IPNetwork.addressBytes(name) != nil { return nil }
        var labels = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        if labels.contains(where: \.isEmpty) {
            return "\(EchoedInput.quoted(name)) is not a host name: it has an empty label (a dot at the start or two in a row)"
        }
        if let label = labels.first(where: { $0.first == UInt8(ascii: "-") || $0.last == UInt8(ascii: "-") }) {
            let shown = EchoedInput.quoted(String(decoding: label, as: UTF8.self))
            return "\(EchoedInput.quoted(name)) is not a host name: its label \(shown) starts or ends with '-'"
        }
        if let last = labels.last, last.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return "\(EchoedInput.quoted(name)) is neither an IPv4 address (four numbers from 0 to 255) "
                + "nor a host name (its last label is all digits)"
        }
        return nil
    }

    private static func isNameASCII(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Letters, marks and digits of any script: what an IDN label holds.
    /// Format characters (U+202E reverses the text around it), spaces,
    /// symbols and punctuation are not.
    private static func isNameLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
            return true
        default:
            return false
        }
    }

    /// Names the character and where it is; a character that is not
    /// printable ASCII is shown by its code point only, never as itself.
    private static func refusal(_ name: String, at index: String.UnicodeScalarView.Index, _ rule: String) -> String {
        let scalar = name.unicodeScalars[index]
        let position = name.unicodeScalars.distance(from: name.unicodeScalars.startIndex, to: index) + 1
        let shown = scalar.isASCII ? "'\(scalar)'" : "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        return "\(EchoedInput.quoted(name)) is not a host name or IP address: \(shown) at character \(position) \(rule)"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
