import Foundation

/// The body of an HTTP/1.x response read to the end of the connection
/// (`Connection: close`), as the signed-list download receives it: status
/// 200 only, `Content-Length` or chunked, everything bounded.
public enum HTTPResponseBody {
    public struct ResponseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String

        init(_ description: String) { self.description = description }
    }

    /// A response head larger than this is not from a list server.
    public static let maximumHeadBytes = 16 * 1024

    /// Whether `received` already holds a whole response (or too much), so
    /// the reader may stop before the server closes.
    public static func isComplete(_ received: [UInt8], maximumBodyBytes: Int) -> Bool {
        guard let head = headEnd(received) else { return received.count > maximumHeadBytes }
        guard let length = try? contentLength(headerLines(received[..<head])) else { return false }
        return received.count - (head + 4) >= min(length, maximumBodyBytes + 1)
    }

    /// The body of a complete response; a status other than 200, a
    /// malformed head or body, or a body over `maximumBodyBytes` fails with
    /// words fit for a configuration error.
    public static func parse(_ received: [UInt8], maximumBodyBytes: Int) throws(ResponseError) -> [UInt8] {
        try parseWithHead(received, maximumBodyBytes: maximumBodyBytes).body
    }

    /// The body, and the value of the first header line named `name` (any
    /// case) in the response head: a challenge-signed list's signature.
    public static func parse(_ received: [UInt8], maximumBodyBytes: Int, header name: String) throws(ResponseError) -> (
        body: [UInt8], header: String?
    ) {
        let response = try parseWithHead(received, maximumBodyBytes: maximumBodyBytes)
        return (response.body, header(name.lowercased(), in: response.lines))
    }

    private static func parseWithHead(_ received: [UInt8], maximumBodyBytes: Int) throws(ResponseError) -> (
        body: [UInt8], lines: [String]
    ) {
        guard let head = headEnd(received) else {
            if received.isEmpty { throw ResponseError("the server closed without answering") }
            throw ResponseError(received.count > maximumHeadBytes ? "response head larger than 16 KiB" : "not an HTTP response")
        }
        let lines = headerLines(received[..<head])
        let statusParts = (lines.first ?? "").split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw ResponseError("not an HTTP response")
        }
        guard status == 200 else {
            let reason = statusParts.count > 2 ? " " + TerminalText.sanitize(String(statusParts[2].prefix(80))) : ""
            let redirect = (300..<400).contains(status) ? " (redirects are not followed: give the final URL)" : ""
            throw ResponseError("HTTP \(status)\(reason)\(redirect)")
        }
        let body = Array(received[(head + 4)...])
        if header("transfer-encoding", in: lines)?.lowercased().contains("chunked") == true {
            return (try dechunk(body, maximumBodyBytes: maximumBodyBytes), lines)
        }
        if let length = try contentLength(lines) {
            guard length <= maximumBodyBytes else { throw tooLarge(maximumBodyBytes) }
            guard body.count >= length else { throw ResponseError("the body ended after \(body.count) of \(length) bytes") }
            return (Array(body.prefix(length)), lines)
        }
        guard body.count <= maximumBodyBytes else { throw tooLarge(maximumBodyBytes) }
        return (body, lines)
    }

    private static func tooLarge(_ limit: Int) -> ResponseError {
        ResponseError("the list is larger than \(limit / (1024 * 1024)) MiB")
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        bytes.prefix(maximumHeadBytes + 4).firstRange(of: [13, 10, 13, 10])?.lowerBound
    }

    private static func headerLines(_ head: ArraySlice<UInt8>) -> [String] {
        String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
    }

    private static func header(_ name: String, in lines: [String]) -> String? {
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == name {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func contentLength(_ lines: [String]) throws(ResponseError) -> Int? {
        guard let text = header("content-length", in: lines) else { return nil }
        guard let length = Int(text), length >= 0 else { throw ResponseError("Content-Length \(EchoedInput.quoted(text)) is not a length") }
        return length
    }

    private static func dechunk(_ body: [UInt8], maximumBodyBytes: Int) throws(ResponseError) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = body[index...].firstRange(of: [13, 10])?.lowerBound, lineEnd - index <= 64 else {
                throw ResponseError("malformed chunked body")
            }
            let sizeText = String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw ResponseError("malformed chunked body")
            }
            index = lineEnd + 2
            if size == 0 { return output }
            guard output.count + size <= maximumBodyBytes else { throw tooLarge(maximumBodyBytes) }
            guard body.count >= index + size + 2 else { throw ResponseError("the chunked body ended early") }
            output += body[index..<(index + size)]
            index += size + 2
        }
    }
}
