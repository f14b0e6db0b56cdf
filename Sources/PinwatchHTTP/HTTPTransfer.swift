import CCurl
import Foundation
import PinwatchCore

/// One HTTP GET through libcurl, on a thread of its own, ended
/// once: by its answer, its error, a redirect (never followed), the size
/// bound or its deadline. The fleet dashboard's Prometheus query and the
/// Certificate Transparency client share it. libcurl hands over the body as it reads it and
/// reads no further once the bound is passed, so memory stays at the
/// bound; Foundation's URLSession on Linux queued every chunk it read for
/// its delegate, gigabytes of them against a server that never ends
/// (Benchmarks/README.md, "A Prometheus answer that never ends").
package final class HTTPTransfer: @unchecked Sendable {
    package enum Ending: Sendable {
        case answered(Data, status: Int)
        case failed(String)
        case tooLarge
        case timedOut
        case redirected(String)
    }

    private static let initialised: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

    private let limit: Int
    private let accept: String
    private let threadName: String
    private let lock = NSLock()
    private var abandoned = false
    /// Read and written on the transfer's thread only.
    private var body = Data()
    private var passedTheBound = false

    /// `accept` is the Accept header's value; `threadName` names the
    /// transfer's thread for a debugger.
    package init(limit: Int, accept: String = "application/json", threadName: String = "pinwatch-http") {
        self.limit = limit
        self.accept = accept
        self.threadName = threadName
    }

    /// Calls `completion` once, on the transfer's thread, unless the
    /// transfer is abandoned first.
    package func start(_ url: URL, timeout: TimeInterval, completion: @escaping @Sendable (Ending) -> Void) {
        let thread = Thread { [self] in
            let ending = perform(url, timeout: timeout)
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

    /// The same transfer, awaited on the caller's thread: for callers that
    /// are already on a thread of their own (a log follower).
    package func fetch(_ url: URL, timeout: TimeInterval) -> Ending {
        let done = DispatchSemaphore(value: 0)
        let box = EndingBox()
        start(url, timeout: timeout) { ending in
            box.set(ending)
            done.signal()
        }
        done.wait()
        return box.ending ?? .failed("the transfer ended without an answer")
    }

    private var isAbandoned: Bool {
        lock.lock()
        defer { lock.unlock() }
        return abandoned
    }

    private func perform(_ url: URL, timeout: TimeInterval) -> Ending {
        guard Self.initialised == CURLE_OK, let handle = curl_easy_init() else { return .failed("libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        let headers = curl_slist_append(nil, "Accept: \(accept)")
        defer { curl_slist_free_all(headers) }
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorText.initialize(to: 0)
        defer { errorText.deallocate() }
        let context = Unmanaged.passUnretained(self).toOpaque()

        _ = pinwatch_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
        _ = pinwatch_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = pinwatch_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
        // Servers compress large answers; the bound is on what they unpack to.
        _ = pinwatch_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
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
        let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
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
        return Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue().isAbandoned ? 1 : 0
    }
}

/// The ending handed from the transfer's thread to the waiting caller.
private final class EndingBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: HTTPTransfer.Ending?

    func set(_ ending: HTTPTransfer.Ending) {
        lock.lock()
        stored = ending
        lock.unlock()
    }

    var ending: HTTPTransfer.Ending? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
