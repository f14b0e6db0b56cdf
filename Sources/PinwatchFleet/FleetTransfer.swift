import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One query's transfer, in a URLSession of its own, ended once: by its
/// answer, its error, a redirect, the size bound or its deadline. On
/// Linux a cancelled task's transfer goes on being delivered, so the
/// bound and the deadline do not wait for the task: they invalidate the
/// session (no more delivery to this delegate, the connection closed),
/// drop what was read and answer at once.
final class FleetTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Ending {
        case answered(Data, status: Int)
        case failed(Error)
        case tooLarge
        case timedOut
        case redirected(String)
    }

    private let limit: Int
    private let lock = NSLock()
    private var body = Data()
    private var session: URLSession?
    private var completion: ((Ending) -> Void)?

    init(limit: Int) {
        self.limit = limit
    }

    func start(
        _ request: URLRequest, configuration: URLSessionConfiguration, timeout: TimeInterval, completion: @escaping (Ending) -> Void
    ) {
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        lock.lock()
        self.session = session
        self.completion = completion
        lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in self?.end(.timedOut) }
        session.dataTask(with: request).resume()
    }

    /// Ends the transfer without an answer.
    func abandon() {
        lock.lock()
        completion = nil
        lock.unlock()
        end(.timedOut)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        guard completion != nil else { return lock.unlock() }
        let tooLarge = body.count + data.count > limit
        // In place: the body is this object's, never copied per chunk.
        if !tooLarge { body.append(data) }
        lock.unlock()
        if tooLarge { end(.tooLarge) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
        let location = response.value(forHTTPHeaderField: "Location") ?? request.url?.absoluteString ?? "an unnamed location"
        end(.redirected(location))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error { return end(.failed(error)) }
        lock.lock()
        let body = self.body
        lock.unlock()
        end(.answered(body, status: (task.response as? HTTPURLResponse)?.statusCode ?? 0))
    }

    /// The first ending wins; every later one (the deadline after an
    /// answer, data after the bound) finds nothing left to end.
    private func end(_ ending: Ending) {
        lock.lock()
        let completion = self.completion
        let session = self.session
        self.completion = nil
        self.session = nil
        body = Data()
        lock.unlock()
        session?.invalidateAndCancel()
        completion?(ending)
    }
}
