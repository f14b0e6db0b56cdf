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
        let out = JSONBytes()
        write(to: out, indent: indent)
        return out.text
    }

    /// One line, no spaces: JSON lines (hook events, logs).
    func renderCompact() -> String {
        let out = JSONBytes()
        writeCompact(to: out)
        return out.text
    }

    private func writeCompact(to out: JSONBytes) {
        switch self {
        case .array(let items):
            out.append("[")
            for index in items.indices {
                if index > 0 { out.append(",") }
                items[index].writeCompact(to: out)
            }
            out.append("]")
        case .object(let fields):
            out.append("{")
            for index in fields.indices {
                if index > 0 { out.append(",") }
                Self.writeString(fields[index].0, to: out)
                out.append(":")
                fields[index].1.writeCompact(to: out)
            }
            out.append("}")
        case .null, .bool, .int, .string:
            write(to: out, indent: 0)
        }
    }

    /// Appends the indented text (a snapshot writes megabytes of it: every
    /// piece is bytes appended to one buffer, literals included).
    func write(to out: JSONBytes, indent: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .int(let value): out.append(decimal: value)
        case .string(let value): Self.writeString(value, to: out)
        case .array(let items):
            guard !items.isEmpty else {
                out.append("[]")
                return
            }
            out.append("[\n")
            for index in items.indices {
                out.indent(indent + 1)
                items[index].write(to: out, indent: indent + 1)
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
            for index in fields.indices {
                out.indent(indent + 1)
                Self.writeString(fields[index].0, to: out)
                out.append(": ")
                fields[index].1.write(to: out, indent: indent + 1)
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
    private static func writeString(_ text: String, to out: JSONBytes) {
        out.append("\"")
        // Digests, host names and dates are printable ASCII: copied whole
        // in one pass (a tenth of a large snapshot's CPU went to the loop below).
        if out.appendIfPlainASCII(text) {
            out.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out.append("\\\"")
            case 0x5C: out.append("\\\\")
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                appendEscape(scalar.value, to: out)
            case _ where TerminalText.isHiddenFormatting(scalar):
                appendEscape(scalar.value, to: out)
            default: out.append(scalar: scalar)
            }
        }
        out.append("\"")
    }

    /// `\uXXXX`, as a UTF-16 surrogate pair above the BMP (tag characters).
    private static func appendEscape(_ value: UInt32, to out: JSONBytes) {
        let units = value > 0xFFFF ? [0xD800 + ((value - 0x10000) >> 10), 0xDC00 + ((value - 0x10000) & 0x3FF)] : [value]
        for unit in units {
            let hex = String(unit, radix: 16)
            out.append(text: "\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
        }
    }
}

/// The bytes of a JSON text being written, in one growing buffer of its
/// own: a snapshot appends hundreds of thousands of small pieces, and an
/// append is then a bounds check and a copy (an `Array` append was about a
/// hundred instructions of checks; a `String` one more).
package final class JSONBytes {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    package init() {
        capacity = 4_096
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    package var text: String { String(decoding: UnsafeBufferPointer(start: storage, count: count), as: UTF8.self) }

    package func removeAll() { count = 0 }

    private func append(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        reserve(source.count)
        (storage + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: source.count)
        count += source.count
    }

    private func append(byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    private func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let grown = max(capacity * 2, count + more)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    func append(_ literal: StaticString) {
        append(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    func append(text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `text` and returns true when it needs no escaping: printable
    /// ASCII without `"` or `\\`. Otherwise appends nothing.
    func appendIfPlainASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            for byte in utf8 where byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C { return false }
            append(UnsafeRawBufferPointer(utf8))
            return true
        }
    }

    func append(decimal value: Int) {
        append(text: String(value))
    }

    func append(scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { append(byte: $0) }
    }

    private static let spaces: StaticString = "                                                                "

    func indent(_ depth: Int) {
        var width = 2 * depth
        while width > 0 {
            let piece = min(width, Self.spaces.utf8CodeUnitCount)
            append(UnsafeRawBufferPointer(start: Self.spaces.utf8Start, count: piece))
            width -= piece
        }
    }
}
