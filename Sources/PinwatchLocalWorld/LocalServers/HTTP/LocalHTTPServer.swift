import Foundation
import PinwatchProbe

/// What a local HTTP server answers to one request.
package enum LocalHTTPResponse: Sendable {
    case body(status: Int, contentType: String, [UInt8])
    /// A body with more header lines (`Content-Encoding: gzip`).
    case headed(status: Int, contentType: String, headers: [String], [UInt8])
    /// `length` bytes, `block` again and again, announced with their
    /// length: the answer too large to hold.
    case flood(length: Int, block: [UInt8])
    /// The request is read and never answered: a server that stalls.
    case silence
}

/// A request as a local server sees it: its target (path and query) and
/// its header fields, names in lower case.
package struct LocalHTTPRequest: Sendable {
    package let target: String
    package let headers: [String: String]
}

/// A plain HTTP/1.1 server on 127.0.0.1 for local peers with an HTTP API
/// (a Certificate Transparency log): one request per connection, answered
/// by `respond` on the loop thread from the request target (path and
/// query; a form POST's body is its query), then closed. Every connection ends by `lifetime` at the latest.
///
/// `@unchecked Sendable`: socket work runs on the loop thread.
package final class LocalHTTPServer: LocalServer, @unchecked Sendable {
    package let core: ListeningServerCore

    package convenience init(lifetime: TimeInterval = 60, respond: @escaping @Sendable (_ target: String) -> LocalHTTPResponse) throws {
        try self.init(lifetime: lifetime, answer: { request in respond(request.target) })
    }

    /// `answer` sees the request's header fields too (an API that takes a token).
    package init(lifetime: TimeInterval = 60, answer: @escaping @Sendable (LocalHTTPRequest) -> LocalHTTPResponse) throws {
        core = try ListeningServerCore { socket, owner in
            HTTPRequestConnection(socket: socket, owner: owner, lifetime: lifetime, respond: answer)
        }
    }

    deinit {
        core.stop()
    }
}

final class HTTPRequestConnection: ServerConnection {
    package let socket: Socket
    let owner: ListeningServerCore
    var closed = false
    private let respond: @Sendable (LocalHTTPRequest) -> LocalHTTPResponse
    private let end: UInt64
    private var request: [UInt8] = []
    private var answered = false
    /// An answer has started and is not yet all written.
    private var writing = false
    private var outbound: ArraySlice<UInt8> = []
    /// The rest of a flood: its block and how many bytes are still to go.
    private var flood: (block: [UInt8], remaining: Int)?
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    /// A request head is a few hundred bytes; past this the peer is not a client.
    private static let maximumHead = 16 << 10
    /// A form POST's body (a long query, as Prometheus' API takes it).
    private static let maximumBody = 4 << 20

    init(
        socket: Socket, owner: ListeningServerCore, lifetime: TimeInterval,
        respond: @escaping @Sendable (LocalHTTPRequest) -> LocalHTTPResponse
    ) {
        self.socket = socket
        self.owner = owner
        self.respond = respond
        end = MonotonicClock.after(seconds: lifetime)
    }

    package var deadline: UInt64? { end }

    package var pollEvents: Int16 {
        Int16(POLLIN) | (outbound.isEmpty && flood == nil ? 0 : Int16(POLLOUT))
    }

    package func handle(events: Int16) {
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readRequest() }
        if !closed { flush() }
    }

    private func readRequest() {
        while !closed {
            switch socket.read(into: &readBuffer) {
            case .bytes(let count):
                guard !answered else { continue }
                request += readBuffer.prefix(count)
                switch Self.request(of: request) {
                case .complete(let target): answer(target)
                case .partial(let head) where head > Self.maximumHead: return finish()
                case .partial: break
                }
            case .wouldBlock: return
            case .endOfStream, .failed: return finish()
            }
        }
    }

    enum Reading {
        /// The bytes of the head read so far, or the whole request once a
        /// body it announced has come too.
        case partial(head: Int)
        case complete(LocalHTTPRequest)
    }

    /// The request once the head (and a POST's body) is complete, its
    /// target "" for a head that is neither a GET nor a form POST
    /// request line. A form POST is answered as the GET of its target
    /// with the body as its query, which is how an API such as
    /// Prometheus' reads the two.
    private static func request(of request: [UInt8]) -> Reading {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard request.count >= 4,
            let end = (0...(request.count - 4)).first(where: { request[$0..<($0 + 4)].elementsEqual(terminator) })
        else { return .partial(head: request.count) }
        let lines = String(decoding: request[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let line = (lines.first ?? "").split(separator: " ")
        guard line.count == 3, line[0] == "GET" || line[0] == "POST" else {
            return .complete(LocalHTTPRequest(target: "", headers: headers))
        }
        guard line[0] == "POST" else { return .complete(LocalHTTPRequest(target: String(line[1]), headers: headers)) }
        guard let length = headers["content-length"].flatMap(Int.init), (0...maximumBody).contains(length),
            headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true, !line[1].contains("?")
        else { return .complete(LocalHTTPRequest(target: "", headers: headers)) }
        let body = request[(end + 4)...]
        guard body.count >= length else { return .partial(head: end + 4) }
        return .complete(LocalHTTPRequest(target: line[1] + "?" + String(decoding: body.prefix(length), as: UTF8.self), headers: headers))
    }

    private func answer(_ request: LocalHTTPRequest) {
        answered = true
        switch respond(request) {
        case .body(let status, let contentType, let body):
            outbound = ArraySlice(Self.head(status: status, contentType: contentType, length: body.count) + body)
        case .headed(let status, let contentType, let headers, let body):
            outbound = ArraySlice(Self.head(status: status, contentType: contentType, length: body.count, headers: headers) + body)
        case .flood(let length, let block):
            outbound = ArraySlice(Self.head(status: 200, contentType: "application/json", length: length))
            flood = block.isEmpty ? nil : (block, length)
        case .silence:
            break
        }
    }

    private static func head(status: Int, contentType: String, length: Int, headers: [String] = []) -> [UInt8] {
        let reason = status == 200 ? "OK" : "Error"
        let more = headers.map { $0 + "\r\n" }.joined()
        return Array(
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(length)\r\n\(more)Connection: close\r\n\r\n"
                .utf8)
    }

    /// Writes what is due; once the whole answer is out, half-closes, and
    /// the client's end of stream then closes the connection.
    private func flush() {
        while !closed {
            if outbound.isEmpty, let current = flood {
                let count = min(current.block.count, current.remaining)
                outbound = current.block.prefix(count)
                flood = current.remaining > count ? (current.block, current.remaining - count) : nil
            }
            guard !outbound.isEmpty else {
                if writing {
                    writing = false
                    socket.shutdownWrites()
                }
                return
            }
            writing = true
            switch socket.write(outbound) {
            case .bytes(let count): outbound = outbound.dropFirst(count)
            case .wouldBlock: return
            case .failed: return finish()
            }
            // A flood yields after each block: the loop serves other peers.
            if flood != nil { return }
        }
    }
}
