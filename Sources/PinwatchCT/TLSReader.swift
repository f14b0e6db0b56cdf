/// What a log sent that does not parse: which structure, and why.
package struct CTFormatError: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// Reads the TLS presentation language (RFC 8446 §3) RFC 6962 encodes its
/// structures in: big-endian integers and length-prefixed vectors. Every
/// read is checked against what is left, so a hostile length fails here
/// instead of reading past the buffer.
struct TLSReader {
    private let bytes: [UInt8]
    private(set) var position: Int
    private let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.position = 0
        self.what = what
    }

    var isAtEnd: Bool { position == bytes.count }
    var remaining: Int { bytes.count - position }

    mutating func integer(_ width: Int, _ field: String) throws(CTFormatError) -> UInt64 {
        guard remaining >= width else { throw CTFormatError("\(what): \(field) is cut short") }
        var value: UInt64 = 0
        for offset in 0..<width { value = value << 8 | UInt64(bytes[position + offset]) }
        position += width
        return value
    }

    mutating func fixed(_ count: Int, _ field: String) throws(CTFormatError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw CTFormatError("\(what): \(field) is cut short") }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// A vector `opaque field<minimum..2^(8·lengthWidth)-1>`.
    mutating func vector(lengthWidth: Int, minimum: Int = 0, _ field: String) throws(CTFormatError) -> [UInt8] {
        let length = Int(try integer(lengthWidth, "\(field)'s length"))
        guard length >= minimum else { throw CTFormatError("\(what): \(field) is shorter than \(minimum) bytes") }
        guard remaining >= length else {
            throw CTFormatError("\(what): \(field) says \(length) bytes, \(remaining) remain")
        }
        return try fixed(length, field)
    }

    func expectEnd() throws(CTFormatError) {
        guard isAtEnd else { throw CTFormatError("\(what): \(remaining) bytes past the end of the structure") }
    }
}

/// The few TLS-encoded values pinwatch builds: the inputs of signatures.
enum TLSWriter {
    static func integer(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
