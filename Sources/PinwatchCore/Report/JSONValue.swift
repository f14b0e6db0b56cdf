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
        var out = ""
        write(to: &out, indent: indent)
        return out
    }

    /// One line, no spaces: JSON lines (hook events, logs).
    func renderCompact() -> String {
        var out = ""
        writeCompact(to: &out)
        return out
    }

    private func writeCompact(to out: inout String) {
        switch self {
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.writeCompact(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                value.writeCompact(to: &out)
            }
            out += "}"
        case .null, .bool, .int, .string:
            write(to: &out, indent: 0)
        }
    }

    private func write(to out: inout String, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]"
                return
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += Self.indentation(indent + 1)
                item.write(to: &out, indent: indent + 1)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += Self.indentation(indent)
            out += "]"
        case .object(let fields):
            guard !fields.isEmpty else {
                out += "{}"
                return
            }
            out += "{\n"
            for (index, (key, value)) in fields.enumerated() {
                out += Self.indentation(indent + 1)
                Self.writeString(key, to: &out)
                out += ": "
                value.write(to: &out, indent: indent + 1)
                out += index == fields.count - 1 ? "\n" : ",\n"
            }
            out += Self.indentation(indent)
            out += "}"
        }
    }

    /// Certificate strings are attacker-chosen: every control character
    /// (C0, DEL, C1), the JavaScript line separators and the invisible or
    /// reordering characters are escaped, so the output is safe to `cat`
    /// and to embed, and a look-alike name stays visibly different.
    private static func writeString(_ text: String, to out: inout String) {
        out += "\""
        // Digests, host names and dates are printable ASCII: one append
        // (a tenth of a large snapshot's CPU went to the loop below).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                appendEscape(scalar.value, to: &out)
            case _ where TerminalText.isHiddenFormatting(scalar):
                appendEscape(scalar.value, to: &out)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static let indents = (0...16).map { String(repeating: "  ", count: $0) }

    private static func indentation(_ depth: Int) -> String {
        depth < indents.count ? indents[depth] : String(repeating: "  ", count: depth)
    }

    /// `\uXXXX`, as a UTF-16 surrogate pair above the BMP (tag characters).
    private static func appendEscape(_ value: UInt32, to out: inout String) {
        let units = value > 0xFFFF ? [0xD800 + ((value - 0x10000) >> 10), 0xDC00 + ((value - 0x10000) & 0x3FF)] : [value]
        for unit in units {
            let hex = String(unit, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
