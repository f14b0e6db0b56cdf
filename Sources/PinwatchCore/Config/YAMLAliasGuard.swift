/// Refuses YAML anchors and aliases (`&name`, `*name`) before the YAML
/// library sees the text.
///
/// Nine nested aliases in under 1 KB expand to 10⁹ nodes ("billion
/// laughs"); used as a mapping key, the library hashes the expansion and
/// spins for minutes. A pinwatch configuration or theme never needs
/// aliases, and a scan for them is cheaper and simpler to trust than an
/// expansion budget inside someone else's parser.
///
/// The scan follows libyaml's notion of where a token starts (skipping
/// quoted scalars, plain scalars, block scalars, comments and tags), so a
/// `*` or `&` inside a value is left alone. Where it is unsure, it errs on
/// the side of refusing: the message says how to write the value instead.
public enum YAMLAliasGuard {
    public struct Found: Hashable, Sendable {
        public var line: Int
        /// "alias" or "anchor".
        public var kind: String
    }

    public static func message(for found: Found) -> String {
        "YAML \(found.kind)s (&name, *name) are not allowed: write the value out, or quote it if it starts with & or *"
    }

    public static func firstAliasOrAnchor(in text: String) -> Found? {
        var scanner = Scanner(Array(text.utf8))
        return scanner.run()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var flowDepth = 0
        var inPlainScalar = false
        /// True at the start of a line and after a blank: where `#` opens a comment.
        var afterBlank = true
        var lineStart = 0
        /// Column of the last token that started on this line (a key, `-`, `?`):
        /// a block scalar's content is indented past it.
        var lastTokenColumn = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        static func isBlank(_ byte: UInt8?) -> Bool {
            guard let byte else { return true }
            return byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        static func isFlowIndicator(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
                || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}")
        }

        mutating func newline() {
            line += 1
            index += 1
            lineStart = index
            inPlainScalar = false
            afterBlank = true
        }

        mutating func run() -> Found? {
            while let byte = peek() {
                if byte == 0x0A {
                    newline()
                    continue
                }
                if byte == 0x20 || byte == 0x09 || byte == 0x0D {
                    afterBlank = true
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "#"), afterBlank {
                    skipToEndOfLine()
                    continue
                }
                if inPlainScalar {
                    continuePlainScalar(byte)
                    continue
                }
                if let found = startToken(byte) { return found }
            }
            return nil
        }

        mutating func continuePlainScalar(_ byte: UInt8) {
            afterBlank = false
            if byte == UInt8(ascii: ":"), Self.isBlank(peek(1)) || flowDepth > 0 {
                inPlainScalar = false
                index += 1
                return
            }
            if flowDepth > 0, Self.isFlowIndicator(byte) {
                // Ends the scalar; the indicator itself is read as a token.
                inPlainScalar = false
                return
            }
            index += 1
        }

        mutating func startToken(_ byte: UInt8) -> Found? {
            let column = index - lineStart
            afterBlank = false
            switch byte {
            case UInt8(ascii: "*"):
                return Found(line: line, kind: "alias")
            case UInt8(ascii: "&"):
                return Found(line: line, kind: "anchor")
            case UInt8(ascii: "'"):
                skipQuoted(closing: UInt8(ascii: "'"), escapes: false)
                lastTokenColumn = column
            case UInt8(ascii: "\""):
                skipQuoted(closing: UInt8(ascii: "\""), escapes: true)
                lastTokenColumn = column
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flowDepth += 1
                index += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                flowDepth = max(0, flowDepth - 1)
                index += 1
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "-") where column == 0 && (isMarker("---")):
                index += 3
            case UInt8(ascii: ".") where column == 0 && (isMarker("...")):
                index += 3
            case UInt8(ascii: "%") where column == 0:
                skipToEndOfLine()
            case UInt8(ascii: "-"), UInt8(ascii: "?"):
                if Self.isBlank(peek(1)) {
                    lastTokenColumn = column
                    index += 1
                } else {
                    startPlainScalar(column)
                }
            case UInt8(ascii: ":"):
                if Self.isBlank(peek(1)) || flowDepth > 0 {
                    index += 1
                } else {
                    startPlainScalar(column)
                }
            case UInt8(ascii: "|"), UInt8(ascii: ">"):
                if flowDepth == 0 {
                    skipBlockScalar()
                } else {
                    startPlainScalar(column)
                }
            case UInt8(ascii: "!"):
                // A tag runs to the next blank; what follows starts a token.
                while let next = peek(), !Self.isBlank(next) { index += 1 }
            default:
                startPlainScalar(column)
            }
            return nil
        }

        mutating func startPlainScalar(_ column: Int) {
            inPlainScalar = true
            lastTokenColumn = column
            index += 1
        }

        func isMarker(_ marker: String) -> Bool {
            let text = Array(marker.utf8)
            guard index + text.count <= bytes.count, Array(bytes[index..<(index + text.count)]) == text else { return false }
            return Self.isBlank(peek(text.count))
        }

        mutating func skipToEndOfLine() {
            while let byte = peek(), byte != 0x0A { index += 1 }
        }

        mutating func skipQuoted(closing: UInt8, escapes: Bool) {
            index += 1
            while let byte = peek() {
                if byte == 0x0A {
                    line += 1
                    index += 1
                    lineStart = index
                    continue
                }
                if escapes, byte == UInt8(ascii: "\\") {
                    index += peek(1) == 0x0A ? 1 : 2
                    continue
                }
                if byte == closing {
                    // '' inside single quotes is an escaped quote.
                    if !escapes, peek(1) == closing {
                        index += 2
                        continue
                    }
                    index += 1
                    return
                }
                index += 1
            }
        }

        /// Skips the header line, then every line that is blank or indented
        /// past the token that owns the scalar.
        mutating func skipBlockScalar() {
            let ownerColumn = lastTokenColumn
            skipToEndOfLine()
            while peek() == 0x0A {
                var lookahead = index + 1
                var indent = 0
                while lookahead < bytes.count, bytes[lookahead] == 0x20 {
                    lookahead += 1
                    indent += 1
                }
                let blankLine = lookahead >= bytes.count || bytes[lookahead] == 0x0A || bytes[lookahead] == 0x0D
                guard blankLine || indent > ownerColumn else { return }
                newline()
                skipToEndOfLine()
            }
        }
    }
}
