/// The bytes of a JSON text being written, in one growing array: a
/// snapshot appends hundreds of thousands of small pieces.
///
/// The layout every JSON output shares (two-space indent, one field or
/// element per line) is written here and by `JSONObjectWriter`, nowhere else.
package final class JSONBytes {
    private var bytes: [UInt8] = []

    package init() {
        bytes.reserveCapacity(4_096)
    }

    var count: Int { bytes.count }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package func removeAll() { bytes.removeAll(keepingCapacity: true) }

    func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    func append(text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    func append(decimal value: Int) {
        append(text: String(value))
    }

    /// Fixed-point, so a share reads `0.723`, never `0.72300000000000004`
    /// or an exponent below 9e15.
    func append(fixed value: Double, places: Int) {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * Double(scale)).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else {
            // Swift's `1e+20` is a JSON number; infinity has none.
            value.isFinite ? append(text: "\(value)") : append("null")
            return
        }
        let units = Int64(scaled)
        // The fraction's digits without its trailing zeros, counted as
        // numbers: a level's two shares were a tenth of its JSON as strings.
        var fraction = abs(units) % scale
        var digits = places
        while digits > 0, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        if units < 0 { append("-") }
        append(text: String(abs(units) / scale))
        guard digits > 0 else { return }
        append(".")
        let text = String(fraction)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits - text.utf8.count))
        append(text: text)
    }

    private func append(scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { bytes.append($0) }
    }

    func indent(_ depth: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * max(0, depth)))
    }

    /// `[`, one element per line at `depth + 1`, `]` at `depth`; `[]` when
    /// empty. `element(index)` writes the element itself.
    func array(count: Int, depth: Int, _ element: (Int) -> Void) {
        guard count > 0 else {
            append("[]")
            return
        }
        append("[\n")
        for index in 0..<count {
            indent(depth + 1)
            element(index)
            append(index == count - 1 ? "\n" : ",\n")
        }
        indent(depth)
        append("]")
    }

    /// A JSON string. Certificate strings are attacker-chosen: every
    /// control character (C0, DEL, C1), the JavaScript line separators and
    /// the invisible or reordering characters are escaped, so the output is
    /// safe to `cat` and to embed, and a look-alike name stays visibly
    /// different.
    func append(string text: String) {
        // Digests, host names and dates are printable ASCII: tested over
        // their bytes and copied whole, under one access to the buffer (a
        // tenth of a large snapshot's CPU went to the loop below; the test
        // through a generic sequence of bytes, a third of the JSON's).
        if Self.isPlainASCII(text.utf8.span) {
            Self.appendQuoted(text, to: &bytes)
            return
        }
        append("\"")
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                appendEscape(scalar.value)
            case _ where TerminalText.isHiddenFormatting(scalar):
                appendEscape(scalar.value)
            default: append(scalar: scalar)
            }
        }
        append("\"")
    }

    /// `\uXXXX`, as a UTF-16 surrogate pair above the BMP (tag characters).
    private func appendEscape(_ value: UInt32) {
        let units = value > 0xFFFF ? [0xD800 + ((value - 0x10000) >> 10), 0xDC00 + ((value - 0x10000) & 0x3FF)] : [value]
        for unit in units {
            let hex = String(unit, radix: 16)
            append(text: "\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
        }
    }

    private static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Printable ASCII without `"` or `\\`: digests, host names and dates.
    static func isPlainASCII(_ bytes: Span<UInt8>) -> Bool {
        for index in bytes.indices {
            let byte = bytes[index]
            if byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C { return false }
        }
        return true
    }

    /// What starts a field of an object at `depth`: the separator (none
    /// before the first field), the line's indent and `"name": `, under one
    /// access to the buffer (a snapshot starts a few hundred thousand).
    func fieldStart(_ name: StaticString, first: Bool, depth: Int) {
        Self.fieldStart(name, first: first, depth: depth, to: &bytes)
    }

    private static func fieldStart(_ name: StaticString, first: Bool, depth: Int, to bytes: inout [UInt8]) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * max(0, depth)))
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":"), UInt8(ascii: " ")])
    }
}
