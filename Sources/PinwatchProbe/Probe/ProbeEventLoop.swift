internal import CLinux
import Dispatch
import Foundation
import Glibc
import PinwatchCore

/// One thread multiplexing many probes with epoll: sockets, resolver
/// answers and new jobs all wake the same `epoll_wait`, whose timeout is
/// the earliest probe deadline.
///
/// Other threads talk to the loop only through `submit`, which queues a
/// command and writes to an eventfd; everything else runs on the loop's
/// own thread. `@unchecked Sendable` for that reason.
final class ProbeEventLoop: @unchecked Sendable {
    enum ResolvePurpose {
        case dial
        case tunnelTarget
    }

    enum Command {
        case start(ProbeJob)
        case resolved(connectionID: Int, NameResolver.Answer, ResolvePurpose)
        case cancel(ProbeCycle)
        case stop
    }

    typealias Completion = (ProbeJob, ProbeResult?, ProbeEventLoop) -> Void

    private static let wakeToken = UInt64.max
    private static let eventBatch = 256

    private let epoll: Int32
    private let wakeEvent: Int32
    private let resolver: NameResolver
    private let contexts: TLSContextCache
    private let completion: Completion

    private let inboxLock = NSLock()
    private var inbox: [Command] = []

    // Loop thread only.
    private var connections: [Int: ProbeConnection] = [:]
    private var registered: [Int: SocketInterest] = [:]
    private var deadlines = DeadlineHeap()
    private var nextConnectionID = 0
    private var running = true
    let issuerFacts = IssuerFactsCache()
    /// The CT logs' keys SCTs are checked with, decoded once for every probe.
    let logKeys = VerifyingKeyCache()
    /// One read's worth of handshake bytes, shared by every probe of this
    /// loop: they run one at a time on its thread, and OpenSSL copies what
    /// it is fed.
    var handshakeBuffer = [UInt8](repeating: 0, count: ProbeConnection.readChunkBytes)
    /// The loop's thread, set under `inboxLock` once it runs.
    private var loopThread: pthread_t?

    init(name: String, resolver: NameResolver, contexts: TLSContextCache, completion: @escaping Completion) throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeEvent = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard epoll >= 0, wakeEvent >= 0 else {
            let code = errno
            let reason = "cannot start the probe event loop: \(String(cString: strerror(code)))"
            if epoll >= 0 { close(epoll) }
            if wakeEvent >= 0 { close(wakeEvent) }
            if let shortage = LocalResourceShortage(errno: code) { throw ProbeFailure.local(shortage, message: "pinwatch " + reason) }
            throw ProbeFailure(kind: .tls, message: reason)
        }
        self.resolver = resolver
        self.contexts = contexts
        self.completion = completion
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wakeEvent, &event)
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.start()
    }

    func submit(_ command: Command) {
        inboxLock.lock()
        inbox.append(command)
        let fromLoopThread = loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        inboxLock.unlock()
        // The loop reads its inbox after every batch of events, so a command
        // it gives itself (the next probe after one finished) needs no
        // wake-up: that saves a write and a spurious epoll return per probe.
        guard !fromLoopThread else { return }
        var one: UInt64 = 1
        _ = write(wakeEvent, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: Services for connections (loop thread)

    func watch(_ connection: ProbeConnection, for interest: SocketInterest) {
        var event = epoll_event()
        event.events = (interest == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue) | EPOLLERR.rawValue | EPOLLHUP.rawValue
        event.data.u64 = UInt64(connection.id)
        let operation = registered[connection.id] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        guard registered[connection.id] != interest, let socket = connection.socket else { return }
        registered[connection.id] = interest
        _ = epoll_ctl(epoll, operation, socket.descriptor, &event)
    }

    /// Called before a connection closes its socket.
    func forget(_ connection: ProbeConnection) {
        guard registered.removeValue(forKey: connection.id) != nil, let socket = connection.socket else { return }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket.descriptor, nil)
    }

    func resolve(host: String, port: Int, deadline: UInt64, connectionID: Int, purpose: ResolvePurpose) {
        resolver.resolve(host: host, port: port, deadline: deadline) { [weak self] answer in
            self?.submit(.resolved(connectionID: connectionID, answer, purpose))
        }
    }

    func context(for trust: TrustSource, offering offer: KeyTypeOffer?) throws -> TLSContext {
        try contexts.context(for: trust, offering: offer)
    }

    func finished(_ connection: ProbeConnection, result: ProbeResult) {
        connections.removeValue(forKey: connection.id)
        completion(connection.job, result, self)
    }

    // MARK: The loop

    private func run() {
        inboxLock.lock()
        loopThread = pthread_self()
        inboxLock.unlock()
        var events = [epoll_event](repeating: epoll_event(), count: Self.eventBatch)
        while running {
            let ready = epoll_wait(epoll, &events, Int32(events.count), waitMilliseconds())
            if ready < 0 && errno != EINTR { break }
            for slot in 0..<max(0, Int(ready)) {
                let token = events[slot].data.u64
                if token == Self.wakeToken {
                    var counter: UInt64 = 0
                    _ = read(wakeEvent, &counter, MemoryLayout<UInt64>.size)
                    continue
                }
                connections[Int(token)]?.socketReady()
            }
            processInbox()
            expireDeadlines()
        }
        for connection in connections.values {
            connection.abandon()
            completion(connection.job, nil, self)
        }
        connections.removeAll()
        close(epoll)
        close(wakeEvent)
    }

    private func waitMilliseconds() -> Int32 {
        // Commands the loop gave itself while handling the last batch
        // (it sends no wake-up for those) are run without waiting.
        inboxLock.lock()
        let pending = !inbox.isEmpty
        inboxLock.unlock()
        if pending { return 0 }
        guard let earliest = deadlines.earliest else { return -1 }
        let now = DispatchTime.now().uptimeNanoseconds
        guard earliest > now else { return 0 }
        // Rounded up so the loop never wakes just before a deadline and spins.
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    private func processInbox() {
        inboxLock.lock()
        let commands = inbox
        inbox.removeAll(keepingCapacity: true)
        inboxLock.unlock()
        for command in commands {
            switch command {
            case .start(let job):
                let connection = ProbeConnection(id: nextConnectionID, job: job, loop: self)
                nextConnectionID += 1
                connections[connection.id] = connection
                deadlines.insert(DeadlineHeap.Entry(deadline: connection.deadline, connectionID: connection.id))
                connection.begin()
            case .resolved(let id, let answer, let purpose):
                connections[id]?.resolved(answer, purpose: purpose)
            case .cancel(let cycle):
                for connection in connections.values where connection.job.cycle === cycle {
                    connection.abandon()
                    connections.removeValue(forKey: connection.id)
                    completion(connection.job, nil, self)
                }
            case .stop:
                running = false
            }
        }
    }

    private func expireDeadlines() {
        let now = DispatchTime.now().uptimeNanoseconds
        while let due = deadlines.popDue(at: now) {
            connections[due.connectionID]?.expire()
        }
    }
}
