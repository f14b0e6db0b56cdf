/// The bytes of a JSON text being written, in one growing buffer of its
/// own: a snapshot appends hundreds of thousands of small pieces, and an
/// append is then a bounds check and a copy (an `Array` append was about a
/// hundred instructions of checks; a `String` one more).
///
/// The layout every JSON output shares (two-space indent, one field or
/// element per line) is written here and by `JSONObjectWriter`, nowhere else.
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

    func append(decimal value: Int) {
        append(text: String(value))
    }

    private func append(scalar: Unicode.Scalar) {
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
        var text = text
        return text.withUTF8 { utf8 in
            guard Self.isPlainASCII(utf8) else { return false }
            append(UnsafeRawBufferPointer(utf8))
            return true
        }
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Printable ASCII without `"` or `\\`, tested eight bytes at a time
    /// (the bytes of a snapshot's strings went through a byte loop of ten
    /// instructions a byte).
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if word & highBits != 0 || hasByte(in: word, below: 0x20) || hasByte(in: word, equalTo: 0x7F)
                || hasByte(in: word, equalTo: 0x22) || hasByte(in: word, equalTo: 0x5C)
            {
                return false
            }
            offset += 8
        }
        for byte in bytes[offset...] where byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C { return false }
        return true
    }

    /// Whether any byte of `word` (all below 0x80) is below `limit` (at
    /// most 0x80): the borrow of a subtraction reaches a byte's high bit
    /// only there.
    private static func hasByte(in word: UInt64, below limit: UInt64) -> Bool {
        (word &- ones &* limit) & ~word & highBits != 0
    }

    private static func hasByte(in word: UInt64, equalTo value: UInt64) -> Bool {
        hasByte(in: word ^ (ones &* value), below: 1)
    }
}
