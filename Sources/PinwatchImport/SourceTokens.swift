/// Kotlin, Java, Swift or Objective-C source cut into the few tokens pin
/// calls, configuration literals and string constants are made of, in one
/// pass over the bytes: names, string literals, and single punctuation;
/// comments and character literals are skipped, lines counted.
struct SourceTokens {
    enum Kind: Equatable {
        /// An identifier or keyword.
        case name(String)
        /// A string literal's value; `template` when Kotlin's `$` or
        /// Swift's `\(` makes it an expression rather than a constant.
        case string(String, template: Bool)
        case punctuation(UInt8)
    }

    struct Token {
        var kind: Kind
        var line: Int
    }

    private(set) var tokens: [Token] = []

    /// `quotes`: JavaScript, TypeScript and Dart write strings in single
    /// quotes (and backticks) where Kotlin and Swift write characters.
    init(_ bytes: [UInt8], singleQuotedStrings quotes: Bool = false) {
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
            case UInt8(ascii: "'"),
                UInt8(ascii: "`") where quotes:
                let start = line
                let (value, template) = Self.quotedLiteral(bytes, &index, &line)
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

    /// The string constants the source defines: Kotlin `val NAME = "…"` and
    /// `const val NAME: String = "…"`, Java `String NAME = "…";`, Swift
    /// `let NAME = "…"`, Objective-C `NSString *const NAME = @"…";` and
    /// `#define NAME @"…"`. A name given two different values is
    /// ambiguous (nil).
    func stringConstants() -> [String: String?] {
        var constants: [String: String?] = [:]
        for index in tokens.indices.dropFirst() where index + 2 < tokens.count {
            guard case .name(let name) = tokens[index].kind,
                Self.declares(tokens[index - 1].kind, before: index > 1 ? tokens[index - 2].kind : nil)
            else { continue }
            var next = index + 1
            if tokens[next].kind == .punctuation(UInt8(ascii: ":")) {
                guard next + 1 < tokens.count, tokens[next + 1].kind == .name("String") else { continue }
                next += 2
            }
            let isDefine = tokens[index - 1].kind == .name("define")
            if !isDefine {
                guard next < tokens.count, tokens[next].kind == .punctuation(UInt8(ascii: "=")) else { continue }
                next += 1
            }
            if next < tokens.count, tokens[next].kind == .punctuation(UInt8(ascii: "@")) { next += 1 }
            guard next < tokens.count, case .string(let value, template: false) = tokens[next].kind else { continue }
            // `"sha256/" + KEY` or `"…".trim()` is an expression.
            if next + 1 < tokens.count, [.punctuation(UInt8(ascii: "+")), .punctuation(UInt8(ascii: "."))].contains(tokens[next + 1].kind) {
                continue
            }
            if let known = constants[name], known != value {
                constants[name] = .some(nil)
            } else {
                constants[name] = value
            }
        }
        return constants
    }

    private static func declares(_ kind: Kind, before earlier: Kind?) -> Bool {
        switch kind {
        case .name(let word):
            return ["val", "var", "let", "String", "const", "final"].contains(word)
                || (word == "define" && earlier == .punctuation(UInt8(ascii: "#")))
        case .punctuation(let byte): return byte == UInt8(ascii: "*")
        case .string: return false
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    /// From the opening `'` or backtick: a literal of that quote, escapes
    /// read; a backtick's `${` makes it an expression.
    private static func quotedLiteral(_ bytes: [UInt8], _ index: inout Int, _ line: inout Int) -> (String, Bool) {
        let quote = bytes[index]
        var value: [UInt8] = []
        var template = false
        index += 1
        while index < bytes.count, bytes[index] != quote {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                guard quote == UInt8(ascii: "`") else { break }
                line += 1
            }
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                value.append(bytes[index + 1])
                index += 2
                continue
            }
            if quote == UInt8(ascii: "`"), byte == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "{") {
                template = true
            }
            value.append(byte)
            index += 1
        }
        if index < bytes.count, bytes[index] == quote { index += 1 }
        return (String(decoding: value, as: UTF8.self), template)
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
                if bytes[index + 1] == UInt8(ascii: "(") {
                    // Swift's interpolation, kept as written for messages.
                    template = true
                    value.append(byte)
                }
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
