/// Kotlin or Java source cut into the few tokens pin calls and string
/// constants are made of, in one pass over the bytes: names, string
/// literals, and single punctuation; comments and character literals
/// are skipped, lines counted.
struct KotlinJavaTokens {
    enum Kind: Equatable {
        /// An identifier or keyword.
        case name(String)
        /// A string literal's value; `template` when Kotlin's `$` makes
        /// it an expression rather than a constant.
        case string(String, template: Bool)
        case punctuation(UInt8)
    }

    struct Token {
        var kind: Kind
        var line: Int
    }

    private(set) var tokens: [Token] = []

    init(_ bytes: [UInt8]) {
        var index = 0
        var line = 1
        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                index += 1
            case UInt8(ascii: "/") where at(1) == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where at(1) == UInt8(ascii: "*"):
                index += 2
                while index < bytes.count, !(bytes[index] == UInt8(ascii: "*") && at(1) == UInt8(ascii: "/")) {
                    if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                    index += 1
                }
                index += 2
            case UInt8(ascii: "\""):
                let start = line
                let (value, template) = Self.stringLiteral(bytes, &index, &line)
                tokens.append(Token(kind: .string(value, template: template), line: start))
            case UInt8(ascii: "'"):
                // A character literal: '"' must not open a string.
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "'"), bytes[index] != UInt8(ascii: "\n") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            case _ where Self.isNameByte(byte) && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                let start = index
                while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
                tokens.append(Token(kind: .name(String(decoding: bytes[start..<index], as: UTF8.self)), line: line))
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            default:
                tokens.append(Token(kind: .punctuation(byte), line: line))
                index += 1
            }
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    /// From the opening quote: a `"…"` literal (escapes read, ended by the
    /// line) or a Kotlin `"""…"""` raw string.
    private static func stringLiteral(_ bytes: [UInt8], _ index: inout Int, _ line: inout Int) -> (String, Bool) {
        var value: [UInt8] = []
        var template = false
        let raw = bytes[index...].starts(with: Array(#"""""#.utf8))
        index += raw ? 3 : 1
        while index < bytes.count {
            let byte = bytes[index]
            if raw, bytes[index...].starts(with: Array(#"""""#.utf8)) {
                index += 3
                break
            }
            if !raw, byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if !raw, byte == UInt8(ascii: "\n") { break }
            if byte == UInt8(ascii: "\n") { line += 1 }
            if !raw, byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                // An escaped character, `\$` included, stands for itself.
                value.append(bytes[index + 1])
                index += 2
                continue
            }
            if byte == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{") || isNameByte(bytes[index + 1]) {
                template = true
            }
            value.append(byte)
            index += 1
        }
        return (String(decoding: value, as: UTF8.self), template)
    }
}
