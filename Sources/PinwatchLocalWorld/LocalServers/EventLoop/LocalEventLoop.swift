import Foundation
import PinwatchProbe

#if canImport(Glibc)
import Glibc
#endif

/// The one background thread that runs every local server in the process.
///
/// Tests start hundreds of servers at once, so a thread per server or per
/// connection would not scale; instead all sockets are non-blocking and
/// multiplexed with `poll` here. The thread starts with the first server
/// and then idles in `poll` for the life of the process.
///
/// `@unchecked Sendable`: `handlers` is touched only on the loop thread;
/// `pendingTasks` only under `lock`.
package final class LocalEventLoop: @unchecked Sendable {
    private static let instance = Result { try LocalEventLoop() }

    /// The process-wide loop, created on first use.
    package static func shared() throws -> LocalEventLoop {
        try instance.get()
    }

    /// A self-pipe: writing a byte to `wakeWriter` ends the loop's `poll`.
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let lock = NSLock()
    private var pendingTasks: [() -> Void] = []
    private var handlers: [Int32: LoopHandler] = [:]
    /// Open connections of every server on this loop; loop thread only.
    package let census = ConnectionCensus()
    private var thread: Thread?

    /// Caps each `poll` so that a lost wake-up could only delay, never hang.
    private static let maximumPollMilliseconds: Int32 = 1000

    private init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw LocalServerError.socket("pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            // Non-blocking both ways: a full pipe already means "wake up".
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeReader = ends[0]
        wakeWriter = ends[1]
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "pinwatch.local-servers"
        self.thread = thread
        thread.start()
    }

    var isLoopThread: Bool {
        Thread.current === thread
    }

    /// Runs `task` on the loop thread soon; callable from any thread.
    func execute(_ task: @escaping () -> Void) {
        lock.lock()
        pendingTasks.append(task)
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    /// Runs `task` on the loop thread and waits for it (at most `timeout`
    /// seconds: the loop never blocks, so the limit is only a safety net).
    package func executeAndWait(timeout: TimeInterval = 10, _ task: @escaping () -> Void) {
        if isLoopThread {
            task()
            return
        }
        let done = DispatchSemaphore(value: 0)
        execute {
            task()
            done.signal()
        }
        _ = done.wait(timeout: .now() + timeout)
    }

    /// Starts watching a handler; loop thread only.
    func register(_ handler: LoopHandler) {
        handlers[handler.fileDescriptor] = handler
    }

    /// Stops watching a handler before its descriptor is closed; loop
    /// thread only. A descriptor number reused later is a new registration.
    func deregister(_ handler: LoopHandler) {
        if handlers[handler.fileDescriptor] === handler {
            handlers[handler.fileDescriptor] = nil
        }
    }

    private func run() {
        var pollSet: [pollfd] = []
        var polled: [LoopHandler] = []
        while true {
            runPendingTasks()
            pollSet.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            pollSet.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0))
            var nearestDeadline: UInt64?
            for handler in handlers.values {
                if let deadline = handler.deadline {
                    nearestDeadline = min(nearestDeadline ?? deadline, deadline)
                }
                let events = handler.pollEvents
                guard events != 0 else { continue }
                pollSet.append(pollfd(fd: handler.fileDescriptor, events: events, revents: 0))
                polled.append(handler)
            }
            let ready = poll(&pollSet, nfds_t(pollSet.count), pollTimeout(until: nearestDeadline))
            if ready > 0 {
                if pollSet[0].revents != 0 { drainWakeups() }
                dispatch(pollSet: pollSet, polled: polled)
            }
            expireHandlers()
        }
    }

    private func pollTimeout(until deadline: UInt64?) -> Int32 {
        guard let deadline else { return Self.maximumPollMilliseconds }
        let now = MonotonicClock.now()
        guard deadline > now else { return 0 }
        let milliseconds = (deadline - now) / 1_000_000 + 1
        return Int32(min(UInt64(Self.maximumPollMilliseconds), milliseconds))
    }

    private func dispatch(pollSet: [pollfd], polled: [LoopHandler]) {
        for listenersPass in [false, true] {
            for (index, handler) in polled.enumerated() where handler.isListener == listenersPass {
                let events = pollSet[index + 1].revents
                // A handler closed earlier in this round must not see
                // events meant for its old descriptor.
                guard events != 0, handlers[handler.fileDescriptor] === handler else { continue }
                handler.handle(events: events)
            }
        }
    }

    private func expireHandlers() {
        let now = MonotonicClock.now()
        let expired = handlers.values.filter { handler in
            handler.deadline.map { $0 <= now } ?? false
        }
        for handler in expired where handlers[handler.fileDescriptor] === handler {
            handler.deadlinePassed()
        }
    }

    private func runPendingTasks() {
        lock.lock()
        let tasks = pendingTasks
        pendingTasks.removeAll()
        lock.unlock()
        for task in tasks { task() }
    }

    private func drainWakeups() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wakeReader, &bytes, bytes.count) > 0 {}
    }
}
