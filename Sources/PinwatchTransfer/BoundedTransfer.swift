import CCurl
import Foundation
import PinwatchCore

/// One HTTP GET (or a form POST) through libcurl (the fleet's Prometheus
/// queries, a CRL), on
/// a thread of its own, ended once: by its answer, its error, a redirect
/// (never followed), the size bound or its deadline. libcurl hands over
/// the body as it reads it and reads no further once the bound is passed,
/// so memory stays at the bound; Foundation's URLSession on Linux queued
/// every chunk it read for its delegate, gigabytes of them against a
/// server that never ends (Benchmarks/README.md, "A Prometheus answer that
/// never ends").
package final class BoundedTransfer: @unchecked Sendable {
    package enum Ending {
        case answered(Data, status: Int)
        case failed(String)
        case tooLarge
        case timedOut
        case redirected(String)
    }

    private static let initialised: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    private let limit: Int
    private let accept: String
    private let protocols: String
    private let proxy: Proxy?
    private let headers: [String]
    private let threadName: String
    private let compressed: Bool
    private let lock = NSLock()
    private var abandoned = false
    /// Read and written on the transfer's thread only.
    private var body = Data()
    private var passedTheBound = false

    /// How the transfer reaches its server.
    package enum Proxy: Sendable {
        /// What the caller's proxy rules decided: no proxy.
        case direct
        /// A proxy URL, credentials in it, as libcurl takes it.
        case url(String)
    }

    /// - Parameter protocols: libcurl's list of the schemes allowed.
    /// - Parameter proxy: nil leaves it to libcurl's reading of the environment.
    /// - Parameter headers: more request header lines (`Authorization: Bearer …`);
    ///   a line holding a carriage return or line feed is not sent.
    /// - Parameter compressed: whether the server may compress the answer;
    ///   false where compressing costs the server more than the bytes
    ///   cost the link (a whole fleet's answers from Prometheus).
    package init(
        limit: Int, accept: String = "application/json", protocols: String = "http,https", proxy: Proxy? = nil,
        headers: [String] = [], threadName: String = "pinwatch-fleet-query", compressed: Bool = true
    ) {
        self.compressed = compressed
        self.limit = limit
        self.accept = accept
        self.protocols = protocols
        self.proxy = proxy
        self.headers = headers.filter { !$0.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) }
        self.threadName = threadName
    }

    /// Calls `completion` once, on the transfer's thread, unless the
    /// transfer is abandoned first. `form`: an
    /// `application/x-www-form-urlencoded` body, sent as a POST: a query
    /// too long for a URL (Prometheus' API takes either).
    package func start(_ url: URL, form: String? = nil, timeout: TimeInterval, completion: @escaping @Sendable (Ending) -> Void) {
        let thread = Thread { [self] in
            let ending = perform(url, form: form, timeout: timeout)
            if !isAbandoned { completion(ending) }
        }
        thread.name = threadName
        thread.start()
    }

    /// Ends the transfer at libcurl's next progress call (a second at
    /// most), without an answer.
    package func abandon() {
        lock.lock()
        abandoned = true
        lock.unlock()
    }

    private var isAbandoned: Bool {
        lock.lock()
        defer { lock.unlock() }
        return abandoned
    }

    func perform(_ url: URL, form: String?, timeout: TimeInterval) -> Ending {
        guard Self.initialised == CURLE_OK, let handle = curl_easy_init() else { return .failed("libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        var headers = curl_slist_append(nil, "Accept: \(accept)")
        for line in self.headers { headers = curl_slist_append(headers, line) }
        defer { curl_slist_free_all(headers) }
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorText.initialize(to: 0)
        defer { errorText.deallocate() }
        let context = Unmanaged.passUnretained(self).toOpaque()

        _ = pinwatch_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
        _ = pinwatch_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, protocols)
        // libcurl copies the body and sends it as a form, the type its default.
        if let form { _ = pinwatch_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, form) }
        // A caller with proxy rules of its own decided: libcurl must not
        // read the environment again behind them ("" is no proxy at all).
        switch proxy {
        case .direct: _ = pinwatch_curl_set_string(handle, CURLOPT_PROXY, "")
        case .url(let url): _ = pinwatch_curl_set_string(handle, CURLOPT_PROXY, url)
        case nil: break
        }
        _ = pinwatch_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
        // Prometheus compresses large answers; the bound is on what they unpack to.
        if compressed { _ = pinwatch_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "") }
        _ = pinwatch_curl_set_string(handle, CURLOPT_USERAGENT, "pinwatch")
        _ = pinwatch_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = pinwatch_curl_set_long(handle, CURLOPT_TIMEOUT_MS, WholeNumber.clamped(max(timeout, 0.001) * 1_000, .up))
        // Threads: no SIGALRM for name lookups.
        _ = pinwatch_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = pinwatch_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorText)
        _ = pinwatch_curl_set_write(handle, Self.receive)
        _ = pinwatch_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = pinwatch_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = pinwatch_curl_set_progress(handle, Self.progress)
        _ = pinwatch_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)

        let code = withExtendedLifetime(self) { curl_easy_perform(handle) }
        if passedTheBound { return .tooLarge }
        switch code {
        case CURLE_OK:
            let status = pinwatch_curl_response_code(handle)
            if (300..<400).contains(status) {
                let location = pinwatch_curl_redirect_url(handle).map { String(cString: $0) }
                return .redirected(location ?? "an unnamed location")
            }
            return .answered(body, status: status)
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        default:
            let detail = String(cString: errorText)
            return .failed(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
    }

    /// libcurl's write callback: a count other than the one given ends
    /// the transfer.
    private static let receive: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        guard let bytes, let context else { return 0 }
        let transfer = Unmanaged<BoundedTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.limit else {
            transfer.passedTheBound = true
            return 0
        }
        bytes.withMemoryRebound(to: UInt8.self, capacity: length) { transfer.body.append($0, count: length) }
        return length
    }

    /// libcurl's progress callback: non-zero ends the transfer.
    private static let progress: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
        context, _, _, _, _ in
        guard let context else { return 0 }
        return Unmanaged<BoundedTransfer>.fromOpaque(context).takeUnretainedValue().isAbandoned ? 1 : 0
    }
}
