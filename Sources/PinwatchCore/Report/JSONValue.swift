/// A JSON value whose objects keep their key order.
///
/// DESIGN §8 fixes the field order, which `JSONEncoder` does not promise,
/// so reports are built as these values and written by `render`.
package enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
    package static func optional(_ number: Int?) -> JSONValue { number.map(JSONValue.int) ?? .null }

    /// Two-space indented, one field per line.
    package func render(indent: Int = 0) -> String {
        var out = JSONBytes()
        write(to: &out, indent: indent)
        return out.text
    }

    /// One line, no spaces: JSON lines (hook events, logs).
    func renderCompact() -> String {
        var out = JSONBytes()
        writeCompact(to: &out)
        return out.text
    }

    private func writeCompact(to out: inout JSONBytes) {
        switch self {
        case .array(let items):
            out.append("[")
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(",") }
                item.writeCompact(to: &out)
            }
            out.append("]")
        case .object(let fields):
            out.append("{")
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out.append(",") }
                Self.writeString(key, to: &out)
                out.append(":")
                value.writeCompact(to: &out)
            }
            out.append("}")
        case .null, .bool, .int, .string:
            write(to: &out, indent: 0)
        }
    }

    private func write(to out: inout JSONBytes, indent: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .int(let value): out.append(String(value))
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let items):
            guard !items.isEmpty else {
                out.append("[]")
                return
            }
            out.append("[\n")
            for (index, item) in items.enumerated() {
                out.indent(indent + 1)
                item.write(to: &out, indent: indent + 1)
                out.append(index == items.count - 1 ? "\n" : ",\n")
            }
            out.indent(indent)
            out.append("]")
        case .object(let fields):
            guard !fields.isEmpty else {
                out.append("{}")
                return
            }
            out.append("{\n")
            for (index, (key, value)) in fields.enumerated() {
                out.indent(indent + 1)
                Self.writeString(key, to: &out)
                out.append(": ")
                value.write(to: &out, indent: indent + 1)
                out.append(index == fields.count - 1 ? "\n" : ",\n")
            }
            out.indent(indent)
            out.append("}")
        }
    }

    /// Certificate strings are attacker-chosen: every control character
    /// (C0, DEL, C1), the JavaScript line separators and the invisible or
    /// reordering characters are escaped, so the output is safe to `cat`
    /// and to embed, and a look-alike name stays visibly different.
    private static func writeString(_ text: String, to out: inout JSONBytes) {
        out.append("\"")
        // Digests, host names and dates are printable ASCII: one append
        // (a tenth of a large snapshot's CPU went to the loop below).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out.append(text)
            out.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out.append("\\\"")
            case 0x5C: out.append("\\\\")
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                appendEscape(scalar.value, to: &out)
            case _ where TerminalText.isHiddenFormatting(scalar):
                appendEscape(scalar.value, to: &out)
            default: out.append(scalar)
            }
        }
        out.append("\"")
    }

    /// `\uXXXX`, as a UTF-16 surrogate pair above the BMP (tag characters).
    private static func appendEscape(_ value: UInt32, to out: inout JSONBytes) {
        let units = value > 0xFFFF ? [0xD800 + ((value - 0x10000) >> 10), 0xDC00 + ((value - 0x10000) & 0x3FF)] : [value]
        for unit in units {
            let hex = String(unit, radix: 16)
            out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
        }
    }
}

/// The bytes of a JSON text being written: appending UTF-8 to an array is
/// a copy, where appending to a `String` goes through its storage checks
/// at every piece. With `DateText`'s arithmetic, a 200-host snapshot's
/// printing went from 111 M to 78 M instructions.
private struct JSONBytes {
    private var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(4_096)
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { bytes.append($0) }
    }

    mutating func indent(_ depth: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }
}
