/// TrustKit configured in code, as most iOS apps do: the Swift or
/// Objective-C dictionary literal given to
/// `TrustKit.initSharedInstance(withConfiguration:)`, read from its
/// `kTSKPinnedDomains` entry. Values are string literals, string constants
/// of the same file, booleans (`true`, `@YES`, `NSNumber(value: true)`),
/// arrays and dictionaries; the documented `kTSK…` keys stand for their
/// `TSK…` strings. Anything else is kept as written, to be named.
struct TrustKitCodeLiteral {
    indirect enum Value {
        case string(String)
        case bool(Bool)
        case array([Value])
        case dictionary([(key: Value, value: Value)])
        /// An expression this file does not resolve, as written.
        case unresolved(String)
    }

    /// Nesting beyond this is not a TrustKit configuration; it stops the
    /// recursion before the stack does.
    static let maximumDepth = 16

    /// The value of the first `kTSKPinnedDomains:` entry, nil without one.
    private(set) var pinnedDomains: Value?

    private let tokens: [SourceTokens.Token]
    private let constants: [String: String?]

    init(_ bytes: [UInt8]) {
        let source = SourceTokens(bytes)
        tokens = source.tokens
        constants = source.stringConstants()
        guard
            let key = tokens.indices.first(where: { index in
                [.name("kTSKPinnedDomains"), .string("TSKPinnedDomains", template: false)].contains(tokens[index].kind)
                    && index + 1 < tokens.count && tokens[index + 1].kind == .punctuation(UInt8(ascii: ":"))
            })
        else { return }
        var index = key + 2
        pinnedDomains = value(at: &index, depth: 0)
    }

    /// Bytes that configure TrustKit in code rather than in a property list
    /// or JSON: the `kTSKPinnedDomains` constant, or the key written as a
    /// string in something that starts as neither.
    static func isCode(_ bytes: [UInt8]) -> Bool {
        if bytes.firstRange(of: Array("kTSKPinnedDomains".utf8)) != nil { return true }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first != UInt8(ascii: "<") && first != UInt8(ascii: "{") && !bytes.starts(with: Array("bplist".utf8))
            && bytes.firstRange(of: Array("TSKPinnedDomains".utf8)) != nil
    }

    // MARK: Parsing

    private func kind(_ index: Int) -> SourceTokens.Kind? { index < tokens.count ? tokens[index].kind : nil }

    private static func isPunctuation(_ kind: SourceTokens.Kind?, _ character: Character) -> Bool {
        kind == .punctuation(character.asciiValue ?? 0)
    }

    /// One value from `index`, which ends after it (at the `,`, `:` or
    /// closing bracket that follows, not consumed).
    private func value(at index: inout Int, depth: Int) -> Value {
        let start = index
        let parsed = primary(at: &index, depth: depth)
        let next = kind(index)
        if next == nil || [",", ":", "]", "}", ")"].contains(where: { Self.isPunctuation(next, $0) }) {
            return parsed
        }
        // `"sha256/" + key`, `hashes.first!`, a call: an expression.
        index = start
        return .unresolved(skipExpression(at: &index))
    }

    private func primary(at index: inout Int, depth: Int) -> Value {
        guard depth < Self.maximumDepth, let first = kind(index) else { return .unresolved(skipExpression(at: &index)) }
        switch first {
        case .string(let text, let template):
            index += 1
            return template ? .unresolved("\"\(text)\"") : .string(text)
        case .punctuation(UInt8(ascii: "@")):
            // Objective-C literals: @"…", @[…], @{…}, @YES, @(…).
            index += 1
            if Self.isPunctuation(kind(index), "[") { return collection(at: &index, closer: "]", depth: depth) }
            if Self.isPunctuation(kind(index), "{") { return collection(at: &index, closer: "}", depth: depth) }
            if Self.isPunctuation(kind(index), "(") { return parenthesised(at: &index, depth: depth) }
            return primary(at: &index, depth: depth + 1)
        case .punctuation(UInt8(ascii: "[")):
            return collection(at: &index, closer: "]", depth: depth)
        case .punctuation(UInt8(ascii: "(")):
            return parenthesised(at: &index, depth: depth)
        case .name(let name):
            return named(name, at: &index, depth: depth)
        default:
            return .unresolved(skipExpression(at: &index))
        }
    }

    private func named(_ name: String, at index: inout Int, depth: Int) -> Value {
        index += 1
        switch name {
        case "true", "YES": return .bool(true)
        case "false", "NO": return .bool(false)
        case "NSNumber":
            // NSNumber(value: true)
            guard Self.isPunctuation(kind(index), "("), kind(index + 1) == .name("value"), Self.isPunctuation(kind(index + 2), ":") else {
                index -= 1
                return .unresolved(skipExpression(at: &index))
            }
            index += 3
            let inner = value(at: &index, depth: depth + 1)
            guard Self.isPunctuation(kind(index), ")") else { return .unresolved(skipExpression(at: &index)) }
            index += 1
            return inner
        default:
            if name.hasPrefix("kTSK") { return .string(String(name.dropFirst())) }
            if let constant = constants[name] ?? nil { return .string(constant) }
            return .unresolved(name)
        }
    }

    private func parenthesised(at index: inout Int, depth: Int) -> Value {
        index += 1
        let inner = value(at: &index, depth: depth + 1)
        guard Self.isPunctuation(kind(index), ")") else { return .unresolved(skipExpression(at: &index)) }
        index += 1
        return inner
    }

    /// `[a, b]`, `[k: v]`, `[:]`, `@[…]`, `@{k: v}`, from the opening bracket.
    private func collection(at index: inout Int, closer: Character, depth: Int) -> Value {
        index += 1
        var elements: [Value] = []
        var pairs: [(key: Value, value: Value)] = []
        var isDictionary = closer == "}"
        if Self.isPunctuation(kind(index), ":"), Self.isPunctuation(kind(index + 1), closer) {
            index += 2
            return .dictionary([])
        }
        while let next = kind(index), !Self.isPunctuation(next, closer) {
            let element = value(at: &index, depth: depth + 1)
            if Self.isPunctuation(kind(index), ":") {
                isDictionary = true
                index += 1
                pairs.append((element, value(at: &index, depth: depth + 1)))
            } else {
                elements.append(element)
            }
            if Self.isPunctuation(kind(index), ",") {
                index += 1
            } else if !Self.isPunctuation(kind(index), closer) {
                return .unresolved(skipExpression(at: &index))
            }
        }
        index += 1
        return isDictionary ? .dictionary(pairs) : .array(elements)
    }

    /// Skips to the `,`, `:` or closing bracket that ends an expression, and
    /// returns it as written (shortened when quoted in a message).
    private func skipExpression(at index: inout Int) -> String {
        var depth = 0
        var written = ""
        while let next = kind(index) {
            if case .punctuation(let byte) = next {
                if depth == 0,
                    [UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ")")].contains(byte)
                {
                    break
                }
                if [UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{")].contains(byte) { depth += 1 }
                if [UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte) { depth -= 1 }
            }
            if written.utf8.count < 200 {
                switch next {
                case .name(let name): written += (written.last?.isLetter == true ? " " : "") + name
                case .string(let text, _): written += "\"\(text)\""
                case .punctuation(let byte): written.unicodeScalars.append(UnicodeScalar(byte))
                }
            }
            index += 1
        }
        return written.isEmpty ? "(nothing)" : written
    }
}
