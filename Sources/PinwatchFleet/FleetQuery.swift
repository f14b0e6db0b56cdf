import Foundation
import PinwatchCore
import PinwatchTransfer

/// `watch --prometheus URL [--match SELECTOR]` and `snapshot --prometheus`:
/// instant queries through libcurl, each within a deadline of its own and
/// a bound on the answer's size. `fetch` asks for every series of the
/// fleet in one query; the dashboard asks for a window of it
/// (`fetchWindow`, `FleetQueryPlan`).
package final class FleetQuery: @unchecked Sendable {
    /// Room for the largest fleet the configuration limits allow, in
    /// several vantages; an answer past it is not the dashboard's query.
    package static let maximumBody = 64 << 20

    package let server: URL
    package let selector: String
    /// The whole query's deadline, from the request to the answer's last byte.
    package let timeout: TimeInterval
    private let lock = NSLock()
    private var inFlight: [ObjectIdentifier: BoundedTransfer] = [:]
    private var closed = false
    /// Past this a query goes as a form POST: a window's host list makes
    /// URLs that proxies and servers may refuse.
    package static let longestURL = 2_048

    /// `server` is the Prometheus base URL (`http://prom:9090`, or under a
    /// path prefix); `selector` extra matchers (`job="pinwatch"`, with or
    /// without braces).
    package init(server: URL, selector: String?, timeout: TimeInterval) {
        self.server = server
        self.selector = Self.matchers(selector)
        self.timeout = timeout
    }

    /// Why `text` cannot be `--prometheus`, or nil.
    package static func problem(_ text: String) -> String? {
        PrometheusServer.problem(text)
    }

    static func matchers(_ selector: String?) -> String {
        var text = (selector ?? "").trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("{"), text.hasSuffix("}") { text = String(text.dropFirst().dropLast()) }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The PromQL sent: every name the dashboard reads, with `--match`.
    package var promQL: String {
        plan.series(FleetSnapshot.families)
    }

    var requestURL: URL? {
        request(for: promQL)?.url
    }

    package func request(for promQL: String) -> (url: URL, form: String?)? {
        Self.request(server: server, promQL: promQL)
    }

    /// `/api/v1/query` under `server`'s path asking `promQL`: a GET URL,
    /// or when that would be longer than `longestURL`, the endpoint and
    /// the form to POST to it.
    static func request(server: URL, promQL: String) -> (url: URL, form: String?)? {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)
        let base = components?.path ?? ""
        components?.path = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/api/v1/query"
        guard let endpoint = components?.url else { return nil }
        // A query longer than the URL may be is not percent-encoded into one
        // first: a snapshot's chunk names thousands of hosts.
        if promQL.utf8.count <= Self.longestURL {
            components?.queryItems = [URLQueryItem(name: "query", value: promQL)]
            if let url = components?.url, url.absoluteString.utf8.count <= Self.longestURL { return (url, nil) }
        }
        return (endpoint, "query=" + Self.formEncoded(promQL))
    }

    /// `application/x-www-form-urlencoded`: every byte but the unreserved ones as `%XX`.
    static func formEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Calls `completion` once, on the transfer's thread,
    /// with the fleet or why it could not be read; at the latest
    /// `timeout` after the call.
    package func fetch(_ completion: @escaping @Sendable (Result<FleetSnapshot, FleetQueryProblem>) -> Void) {
        let probeSeries = !selector.isEmpty
        transfer(promQL, timeout: timeout) { ending in
            completion(Self.outcome(ending, timeout: self.timeout, probeSeries: probeSeries))
        }
    }

    /// One query on the caller's thread, tracked so that `close` ends it;
    /// nil once the query is closed.
    func transferHere(_ promQL: String, timeout: TimeInterval) -> BoundedTransfer.Ending? {
        guard let request = request(for: promQL) else { return .failed("cannot build a query URL from \(server.absoluteString)") }
        let transfer = BoundedTransfer(limit: Self.maximumBody)
        let key = ObjectIdentifier(transfer)
        guard track(transfer, key) else { return nil }
        let ending = transfer.fetch(request.url, form: request.form, timeout: timeout)
        lock.lock()
        inFlight[key] = nil
        let ended = closed
        lock.unlock()
        return ended ? nil : ending
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    private func track(_ transfer: BoundedTransfer, _ key: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return false }
        inFlight[key] = transfer
        return true
    }

    /// One query, its transfer tracked so that `close` ends it; nothing
    /// is called once the query is closed.
    func transfer(_ promQL: String, timeout: TimeInterval, completion: @escaping @Sendable (BoundedTransfer.Ending) -> Void) {
        guard let request = request(for: promQL) else {
            completion(.failed("cannot build a query URL from \(server.absoluteString)"))
            return
        }
        let transfer = BoundedTransfer(limit: Self.maximumBody)
        let key = ObjectIdentifier(transfer)
        guard track(transfer, key) else { return }
        transfer.start(request.url, form: request.form, timeout: timeout) { [weak self] ending in
            self?.lock.lock()
            self?.inFlight[key] = nil
            self?.lock.unlock()
            completion(ending)
        }
    }

    static func outcome(_ ending: BoundedTransfer.Ending, timeout: TimeInterval, probeSeries: Bool) -> Result<
        FleetSnapshot, FleetQueryProblem
    > {
        vector(ending, timeout: timeout, limit: maximumBody).map { FleetSnapshot($0, probeSeries: probeSeries) }
    }

    /// What a query whose answer was bounded by `limit` bytes ended with.
    static func tooLarge(_ limit: Int) -> FleetQueryProblem {
        FleetQueryProblem("Prometheus answered more than \(size(limit)): the rest was not read (narrow it with --match)")
    }

    /// `64 MiB`, `16 KiB`.
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }

    /// One query's samples, or why there are none.
    static func vector(_ ending: BoundedTransfer.Ending, timeout: TimeInterval, limit: Int) -> Result<VectorAnswer, FleetQueryProblem> {
        switch ending {
        case .tooLarge:
            return .failure(tooLarge(limit))
        case .timedOut:
            return .failure(FleetQueryProblem("Prometheus query timed out after \(seconds(timeout)): no whole answer"))
        case .redirected(let location):
            return .failure(
                FleetQueryProblem(
                    "Prometheus redirected the query to \(PrometheusVector.bounded(location)): not followed (give that URL to --prometheus)"
                ))
        case .failed(let reason):
            return .failure(FleetQueryProblem("Prometheus unreachable: \(reason)"))
        case .answered(let body, let status):
            return vector(body: body, status: status)
        }
    }

    /// `probeSeries`: keep the rows of `/probe` scrapes, as a `--match`
    /// that selects them asks; without one they are left out.
    static func outcome(body: Data, status: Int, probeSeries: Bool = true) -> Result<FleetSnapshot, FleetQueryProblem> {
        vector(body: body, status: status).map { FleetSnapshot($0, probeSeries: probeSeries) }
    }

    static func vector(body: Data, status: Int) -> Result<VectorAnswer, FleetQueryProblem> {
        // Prometheus answers a bad query with 400 or 422 and a JSON error: say it.
        guard (200..<300).contains(status) || status == 400 || status == 422 else {
            return .failure(FleetQueryProblem("Prometheus answered HTTP \(status)"))
        }
        return PrometheusVector.parse(body)
    }

    /// `2 s`, `0.5 s`.
    static func seconds(_ interval: TimeInterval) -> String {
        let tenths = WholeNumber.clamped(interval * 10, .toNearestOrAwayFromZero)
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }

    /// Ends every query still running; their completions are not called.
    package func close() {
        lock.lock()
        closed = true
        let transfers = Array(inFlight.values)
        inFlight.removeAll()
        lock.unlock()
        transfers.forEach { $0.abandon() }
    }
}
