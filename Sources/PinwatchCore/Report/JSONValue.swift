/// A JSON value whose objects keep their key order.
///
/// DESIGN §8 fixes the field order, which `JSONEncoder` does not promise,
/// so small documents are built as these values and written by `render`;
/// a snapshot's hosts are written field by field (`JSONObjectWriter`).
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
                out.append(string: fields[index].0)
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
        case .string(let value): out.append(string: value)
        case .array(let items):
            out.array(count: items.count, depth: indent) { items[$0].write(to: out, indent: indent + 1) }
        case .object(let fields):
            JSONObjectWriter.write(to: out, depth: indent) { writer in
                for (name, value) in fields { writer.field(name, value) }
            }
        }
    }
}
