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
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else {
            // Swift's `1e+20` is a JSON number; infinity has none.
            value.isFinite ? append(text: "\(value)") : append("null")
            return
        }
        let units = Int64(scaled)
        let whole = abs(units) / Int64(scale)
        var fraction = String(abs(units) % Int64(scale))
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        append(text: (units < 0 ? "-" : "") + String(whole) + (fraction.isEmpty ? "" : "." + fraction))
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
        append("\"")
        // Digests, host names and dates are printable ASCII: copied whole
        // in one pass (a tenth of a large snapshot's CPU went to the loop below).
        if appendIfPlainASCII(text) {
            append("\"")
            return
        }
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

    /// Appends `text` and returns true when it needs no escaping: printable
    /// ASCII without `"` or `\\`. Otherwise appends nothing.
    private func appendIfPlainASCII(_ text: String) -> Bool {
        guard Self.isPlainASCII(text.utf8) else { return false }
        append(text: text)
        return true
    }

    /// Printable ASCII without `"` or `\\`: digests, host names and dates.
    static func isPlainASCII<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
    }
}
