import Foundation
import PinwatchCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `watch --prometheus URL [--match SELECTOR]`: one instant query for every
/// series the dashboard shows, through Foundation's URLSession, with a
/// timeout and a bound on the answer's size.
public final class FleetQuery: @unchecked Sendable {
    /// Room for the largest fleet the configuration limits allow, in
    /// several vantages; an answer past it is not the dashboard's query.
    public static let maximumBody = 64 << 20

    public let server: URL
    public let selector: String
    private let session: URLSession
    private let limiter: BodyLimiter

    /// `server` is the Prometheus base URL (`http://prom:9090`, or under a
    /// path prefix); `selector` extra matchers (`job="pinwatch"`, with or
    /// without braces).
    public init(server: URL, selector: String?, timeout: TimeInterval) {
        self.server = server
        self.selector = Self.matchers(selector)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        limiter = BodyLimiter(limit: Self.maximumBody)
        session = URLSession(configuration: configuration, delegate: limiter, delegateQueue: nil)
    }

    /// Why `text` cannot be `--prometheus`, or nil.
    public static func problem(_ text: String) -> String? {
        PrometheusServer.problem(text)
    }

    static func matchers(_ selector: String?) -> String {
        var text = (selector ?? "").trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("{"), text.hasSuffix("}") { text = String(text.dropFirst().dropLast()) }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The PromQL sent: every name the dashboard reads, with `--match`.
    public var promQL: String {
        let names = FleetSnapshot.seriesNames.joined(separator: "|")
        return "{__name__=~\"\(names)\"\(selector.isEmpty ? "" : ",\(selector)")}"
    }

    var requestURL: URL? {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)
        let base = components?.path ?? ""
        components?.path = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/api/v1/query"
        components?.queryItems = [URLQueryItem(name: "query", value: promQL)]
        return components?.url
    }

    /// Calls `completion` once, on a URLSession queue, with the fleet or
    /// why it could not be read.
    public func fetch(_ completion: @escaping @Sendable (Result<FleetSnapshot, FleetQueryProblem>) -> Void) {
        guard let url = requestURL else {
            completion(.failure(FleetQueryProblem("cannot build a query URL from \(server.absoluteString)")))
            return
        }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let task = session.dataTask(with: request)
        limiter.start(task) { body, status, error in
            completion(Self.outcome(body: body, status: status, error: error))
        }
        task.resume()
    }

    static func outcome(body: Data?, status: Int, error: Error?) -> Result<FleetSnapshot, FleetQueryProblem> {
        if let error {
            if error is BodyTooLarge {
                return .failure(FleetQueryProblem("the answer is larger than \(maximumBody >> 20) MiB: narrow it with --match"))
            }
            return .failure(FleetQueryProblem("Prometheus unreachable: \(error.localizedDescription)"))
        }
        // Prometheus answers a bad query with 400 or 422 and a JSON error: say it.
        guard (200..<300).contains(status) || status == 400 || status == 422 else {
            return .failure(FleetQueryProblem("Prometheus answered HTTP \(status)"))
        }
        return PrometheusVector.parse(body ?? Data()).map(FleetSnapshot.init)
    }

    /// Ends the session's delegate cycle.
    public func close() {
        session.invalidateAndCancel()
    }
}

struct BodyTooLarge: Error {}

/// Collects each answer and cancels a transfer once it outgrows the bound,
/// before the body is held in memory.
private final class BodyLimiter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    typealias Completion = @Sendable (Data?, Int, Error?) -> Void
    private struct Transfer {
        var body = Data()
        var tooLarge = false
        var completion: Completion
    }

    private let limit: Int
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    func start(_ task: URLSessionDataTask, completion: @escaping Completion) {
        lock.lock()
        transfers[task.taskIdentifier] = Transfer(completion: completion)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        var tooLarge = false
        if var transfer = transfers[dataTask.taskIdentifier] {
            tooLarge = transfer.body.count + data.count > limit
            transfer.tooLarge = tooLarge
            if !tooLarge { transfer.body.append(data) }
            transfers[dataTask.taskIdentifier] = transfer
        }
        lock.unlock()
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        let transfer = transfers.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let transfer else { return }
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        transfer.completion(transfer.body, status, transfer.tooLarge ? BodyTooLarge() : error)
    }
}
