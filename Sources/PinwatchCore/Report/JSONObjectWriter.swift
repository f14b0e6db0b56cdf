/// One JSON object written field by field straight into `JSONBytes`: `{`,
/// one field per line at `depth + 1`, `}` at `depth`; `{}` when empty.
///
/// A snapshot's hosts are written through it without building a
/// `JSONValue` tree first: building, writing and freeing the tree of 200
/// hosts was 28 M instructions after the last handshake, in the serial
/// tail of every `snapshot --format json`. `JSONValue` objects are written
/// through it too, so the layout has one definition.
package struct JSONObjectWriter {
    private let out: JSONBytes
    private let depth: Int
    private var isEmpty = true

    private init(out: JSONBytes, depth: Int) {
        self.out = out
        self.depth = depth
    }

    /// Writes the object whose fields `fields` writes.
    static func write(to out: JSONBytes, depth: Int, _ fields: (inout JSONObjectWriter) -> Void) {
        out.append("{")
        var writer = JSONObjectWriter(out: out, depth: depth)
        fields(&writer)
        if writer.isEmpty {
            out.append("}")
        } else {
            out.append("\n")
            out.indent(depth)
            out.append("}")
        }
    }

    /// The separator before a field and its indent.
    private mutating func startField() {
        out.append(isEmpty ? "\n" : ",\n")
        isEmpty = false
        out.indent(depth + 1)
    }

    /// `"name": `. Names written as literals are the contract's field
    /// names, plain ASCII that needs no escaping.
    private mutating func key(_ name: StaticString) {
        out.fieldStart(name, first: isEmpty, depth: depth + 1)
        isEmpty = false
    }

    private mutating func key(_ name: String) {
        startField()
        out.append(string: name)
        out.append(": ")
    }

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        out.append(string: value)
    }

    mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { out.append(string: value) } else { out.append("null") }
    }

    mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        out.append(decimal: value)
    }

    mutating func field(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { out.append(decimal: value) } else { out.append("null") }
    }

    /// A fraction to `places` decimals, trailing zeros dropped: `90`,
    /// `6.67`, `0.723`; null when unknown.
    mutating func field(_ name: StaticString, _ value: Double?, places: Int) {
        key(name)
        if let value { out.append(fixed: value, places: places) } else { out.append("null") }
    }

    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        out.append(value ? "true" : "false")
    }

    mutating func field(_ name: StaticString, _ value: JSONValue) {
        key(name)
        value.write(to: out, indent: depth + 1)
    }

    mutating func field(_ name: String, _ value: JSONValue) {
        key(name)
        value.write(to: out, indent: depth + 1)
    }

    mutating func field(_ name: StaticString, strings: [String]) {
        key(name)
        out.array(count: strings.count, depth: depth + 1) { out.append(string: strings[$0]) }
    }

    /// A nested object.
    mutating func object(_ name: StaticString, _ fields: (inout JSONObjectWriter) -> Void) {
        key(name)
        Self.write(to: out, depth: depth + 1, fields)
    }

    /// An array of objects, one per item.
    mutating func objects<Item>(_ name: StaticString, _ items: [Item], _ fields: (Item, inout JSONObjectWriter) -> Void) {
        key(name)
        let depth = depth + 1
        out.array(count: items.count, depth: depth) { index in
            Self.write(to: out, depth: depth + 1) { fields(items[index], &$0) }
        }
    }
}
