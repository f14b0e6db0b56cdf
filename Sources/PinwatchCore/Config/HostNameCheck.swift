/// What a host name, SNI or connect address may not contain, checked the
/// same way for the configuration and the command line.
public enum HostNameCheck {
    /// Why `name` cannot be dialled or sent as SNI, or nil. A control
    /// character is refused above all: OpenSSL's name check stops at a NUL,
    /// so `good.test\0.attacker.example` would pass as good.test.
    public static func problem(_ name: String) -> String? {
        // The usual name is ASCII, checked byte by byte; Character's
        // whitespace test looks up Unicode properties, once per host of a
        // configuration and more.
        let isASCII = name.utf8.allSatisfy { $0 < 0x80 }
        let hasControl =
            isASCII
            ? name.utf8.contains { $0 < 0x20 || $0 == 0x7F }
            : name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        if hasControl {
            return "\(EchoedInput.quoted(name)) contains a control character; a host name never does"
        }
        if name.utf8.count > 253 {
            return "\(EchoedInput.quoted(name)) is longer than a host name can be (253 characters)"
        }
        let hasSpaceOrSlash =
            isASCII
            ? name.utf8.contains { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "/") }
            : name.contains { $0.isWhitespace || $0 == "/" }
        if hasSpaceOrSlash {
            return "\(EchoedInput.quoted(name)) is not a host name or IP address"
        }
        return nil
    }
}
