import Foundation
import PinwatchLocalWorld

/// Prometheus' instant-query API over a fixed list of series, on
/// `LocalHTTPServer`, answering the queries pinwatch sends as Prometheus
/// would: a vector selector (`=`, `=~` matchers, anchored regular
/// expressions; a missing label matches as ""), and the snapshot's
/// `count by (LABELS) (SELECTOR)` and
/// `count by (L) (label_replace(SELECTOR, "L", "$1", "host", "REGEX"))`;
/// a long query POSTed as a form is read as its GET.
/// Every query is logged, so a test can say how many were asked.
package final class ChunkingPrometheus: @unchecked Sendable {
    package struct Series: Sendable {
        package var labels: [String: String]
        package var value: String

        package init(_ labels: [String: String], _ value: String = "1") {
            self.labels = labels
            self.value = value
        }
    }

    package let server: LocalHTTPServer
    private let lock = NSLock()
    private var asked: [String] = []

    package init(_ series: [Series]) throws {
        self.series = series
        let box = Box()
        server = try LocalHTTPServer { target in box.owner?.answer(target) ?? .body(status: 500, contentType: "text/plain", []) }
        box.owner = self
    }

    package var port: Int { server.port }
    package var url: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    package var queries: [String] {
        lock.lock()
        defer { lock.unlock() }
        return asked
    }

    package func stop() { server.stop() }

    private final class Box: @unchecked Sendable {
        weak var owner: ChunkingPrometheus?
    }

    private let series: [Series]

    private func answer(_ target: String) -> LocalHTTPResponse {
        guard let components = URLComponents(string: target), components.path == "/api/v1/query",
            let query = components.queryItems?.first(where: { $0.name == "query" })?.value
        else { return .body(status: 404, contentType: "text/plain", []) }
        lock.lock()
        asked.append(query)
        lock.unlock()
        guard let result = Self.evaluate(query, over: series) else {
            return .body(
                status: 400, contentType: "application/json",
                Array(#"{"status":"error","errorType":"bad_data","error":"not a query this server knows"}"#.utf8))
        }
        let json =
            (try? JSONSerialization.data(withJSONObject: [
                "status": "success", "data": ["resultType": "vector", "result": result],
            ])) ?? Data()
        return .body(status: 200, contentType: "application/json", [UInt8](json))
    }

    private struct Matcher {
        var label: String
        var regex: NSRegularExpression?
        var value: String

        func matches(_ labels: [String: String]) -> Bool {
            let text = labels[label] ?? ""
            guard let regex else { return text == value }
            return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }

    static func evaluate(_ query: String, over series: [Series]) -> [[String: Any]]? {
        guard let open = query.firstIndex(of: "{"), let (matchers, rest) = selector(query[query.index(after: open)...]) else {
            return nil
        }
        let selected = series.filter { one in matchers.allSatisfy { $0.matches(one.labels) } }
        guard query.hasPrefix("count by (") else {
            return selected.map { ["metric": $0.labels, "value": [1_800_000_000.5, $0.value]] }
        }
        if let grouping = query.dropFirst("count by (".count).split(separator: ")", maxSplits: 1).first,
            query.hasPrefix("count by (\(grouping)) ({")
        {
            // A series without a label counts in the group without it.
            let names = grouping.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let counts = Dictionary(grouping: selected) { one in names.map { one.labels[$0] ?? "" } }.mapValues(\.count)
            return counts.map { values, count in
                let metric = Dictionary(uniqueKeysWithValues: zip(names, values).filter { !$0.1.isEmpty })
                return ["metric": metric, "value": [1_800_000_000.5, "\(count)"]]
            }
        }
        // `, "L", "$1", "host", "REGEX"))`: the last string is the regex.
        let strings = literals(rest)
        guard strings.count == 4, let label = strings.first, let regex = anchored(strings[3]) else { return nil }
        var counts: [String: Int] = [:]
        for one in selected {
            let host = one.labels["host"] ?? ""
            let match = regex.firstMatch(in: host, range: NSRange(host.startIndex..., in: host))
            let next = match.flatMap { Range($0.range(at: 1), in: host) }.map { String(host[$0]) } ?? ""
            counts[next, default: 0] += 1
        }
        return counts.map { next, count in
            ["metric": next.isEmpty ? [:] : [label: next], "value": [1_800_000_000.5, "\(count)"]]
        }
    }

    /// The matchers up to the selector's closing brace, and what follows it.
    private static func selector(_ text: Substring) -> ([Matcher], Substring)? {
        var matchers: [Matcher] = []
        var rest = text
        while let first = rest.first(where: { !$0.isWhitespace && $0 != "," }) {
            rest = rest[rest.firstIndex(of: first)!...]
            if first == "}" { return (matchers, rest.dropFirst()) }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let label = rest[..<equals].trimmingCharacters(in: .whitespaces)
            var after = rest[rest.index(after: equals)...]
            let isRegex = after.first == "~"
            if isRegex { after = after.dropFirst() }
            guard let (value, remainder) = literal(after) else { return nil }
            matchers.append(Matcher(label: label, regex: isRegex ? anchored(value) : nil, value: value))
            rest = remainder
        }
        return nil
    }

    /// Every string literal in `text`, unescaped.
    private static func literals(_ text: Substring) -> [String] {
        var found: [String] = []
        var rest = text
        while let quote = rest.firstIndex(of: "\""), let (value, remainder) = literal(rest[quote...]) {
            found.append(value)
            rest = remainder
        }
        return found
    }

    /// A PromQL string literal at the start of `text` (after blanks).
    private static func literal(_ text: Substring) -> (String, Substring)? {
        var rest = text.drop { $0.isWhitespace }
        guard rest.first == "\"" else { return nil }
        rest = rest.dropFirst()
        var value = ""
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == "\"" { return (value, rest) }
            if character == "\\", let escaped = rest.first {
                rest = rest.dropFirst()
                // Go's escapes, as PromQL reads them: `\u00fc`, `\U0001f600`.
                let digits = escaped == "u" ? 4 : escaped == "U" ? 8 : 0
                if digits > 0, let code = UInt32(String(rest.prefix(digits)), radix: 16), let scalar = Unicode.Scalar(code) {
                    value.unicodeScalars.append(scalar)
                    rest = rest.dropFirst(digits)
                } else {
                    value.append(escaped)
                }
            } else {
                value.append(character)
            }
        }
        return nil
    }

    private static func anchored(_ pattern: String) -> NSRegularExpression? {
        try? NSRegularExpression(pattern: "^(?:\(pattern))$")
    }
}
