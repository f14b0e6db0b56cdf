/// The `.add(pattern, pin, …)` calls of an OkHttp `CertificatePinner.Builder`
/// in Kotlin or Java, each argument a string literal or a simple string
/// constant of the same file (`String hostname = "…";`, `val`, `const val`),
/// as OkHttp's own documentation writes them.
struct OkHttpPinCalls {
    struct Call {
        var line: Int
        /// The pattern, then the pins.
        var values: [String]
    }

    /// A call that looks like pinning but has arguments this file does not define.
    struct Unresolved {
        var line: Int
        var arguments: [String]
    }

    private(set) var calls: [Call] = []
    private(set) var unresolved: [Unresolved] = []

    private enum Argument {
        case literal(String)
        case name(String)
        /// Anything else (a qualified name, a concatenation, a call), as written.
        case expression(String)
    }

    init(_ bytes: [UInt8]) {
        let source = SourceTokens(bytes)
        let tokens = source.tokens
        let constants = source.stringConstants()
        let mentionsPinner = tokens.contains { $0.kind == .name("CertificatePinner") }
        var index = 0
        while index + 2 < tokens.count {
            guard tokens[index].kind == .punctuation(UInt8(ascii: ".")), tokens[index + 1].kind == .name("add"),
                tokens[index + 2].kind == .punctuation(UInt8(ascii: "("))
            else {
                index += 1
                continue
            }
            let line = tokens[index].line
            let (parsed, end) = Self.arguments(tokens, from: index + 3)
            // Whatever happened, the scan goes on after the tokens looked at:
            // an unclosed `.add(` read again from each later one would be
            // quadratic.
            index = end
            guard let arguments = parsed, arguments.count >= 2 else { continue }
            var values: [String] = []
            var missing: [String] = []
            for argument in arguments {
                switch argument {
                case .literal(let value): values.append(value)
                case .name(let name):
                    if let value = constants[name] ?? nil { values.append(value) } else { missing.append(name) }
                case .expression(let text): missing.append(text)
                }
            }
            let pinLike = values.dropFirst().contains { $0.hasPrefix("sha256/") || $0.hasPrefix("sha1/") }
            if missing.isEmpty {
                // `.add("tag", "text")` on some list is not a pin call.
                if pinLike || values[0].contains(".") { calls.append(Call(line: line, values: values)) }
            } else if mentionsPinner || pinLike {
                unresolved.append(Unresolved(line: line, arguments: missing))
            }
        }
    }

    /// The arguments from just after `(` to the matching `)` (nil when the
    /// list does not close), and the index after the last token looked at.
    private static func arguments(_ tokens: [SourceTokens.Token], from start: Int) -> ([Argument]?, Int) {
        var arguments: [Argument] = []
        var current: [SourceTokens.Kind] = []
        var depth = 0
        var index = start
        while index < tokens.count {
            let kind = tokens[index].kind
            index += 1
            if case .punctuation(let byte) = kind {
                if depth == 0, byte == UInt8(ascii: ",") || byte == UInt8(ascii: ")") {
                    if !current.isEmpty { arguments.append(argument(current)) }
                    current = []
                    if byte == UInt8(ascii: ")") { return (arguments, index) }
                    continue
                }
                if [UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{")].contains(byte) { depth += 1 }
                if [UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte) { depth -= 1 }
                if depth < 0 { return (nil, index) }
            }
            // Enough to name an expression; a longer one is not a constant anyway.
            if current.count < 64 { current.append(kind) }
        }
        return (nil, index)
    }

    private static func argument(_ kinds: [SourceTokens.Kind]) -> Argument {
        if kinds.count == 1, case .string(let value, template: false) = kinds[0] { return .literal(value) }
        if kinds.count == 1, case .name(let name) = kinds[0] { return .name(name) }
        let written = kinds.map { kind -> String in
            switch kind {
            case .name(let name): return name
            case .string(let value, _): return "\"\(value)\""
            case .punctuation(let byte): return String(UnicodeScalar(byte))
            }
        }
        return .expression(written.joined())
    }
}
