import Dispatch
import Foundation

/// Ctrl-Z and `fg` for the dashboard, handled on the main queue.
///
/// ncurses' own SIGTSTP handler runs on whatever thread the signal hits,
/// in the middle of a paint if it so happens, and about one suspend in four
/// left the shell with echo and line editing off. Here the signal handler
/// only writes a byte to a pipe; the main queue reads it between two
/// paints, gives the terminal back, stops the process with the default
/// action, and takes the terminal again once continued.
package final class JobControl {
    package enum Event {
        /// SIGTSTP: give the terminal back, then call `stopProcess()`.
        case stopRequested
        /// SIGCONT: the terminal may have changed while stopped (or the
        /// signal came with no stop at all): redraw.
        case continued
    }

    /// The pipe's write end, for the signal handler, which cannot capture.
    nonisolated(unsafe) private static var writer: Int32 = -1

    private let reader: Int32
    private let source: DispatchSourceRead

    /// Call before ncurses starts: it installs its own SIGTSTP handler only
    /// when the disposition is still the default.
    static func keepCursesHandlerOut() {
        signal(SIGTSTP, SIG_IGN)
    }

    package init(queue: DispatchQueue, handler: @escaping (Event) -> Void) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw TerminalError("cannot set up job control: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            // A full pipe already means "something to read": the handler must never block.
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        reader = ends[0]
        Self.writer = ends[1]
        source = DispatchSource.makeReadSource(fileDescriptor: reader, queue: queue)
        source.setEventHandler { [reader] in
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = read(reader, &bytes, bytes.count)
            // Several stops queued while one was handled mean one stop.
            let received = bytes.prefix(max(0, count))
            if received.contains(UInt8(ascii: "T")) { handler(.stopRequested) }
            if received.contains(UInt8(ascii: "C")) { handler(.continued) }
        }
        source.resume()
        Self.installHandlers()
    }

    /// Stops the process as Ctrl-Z would have, and returns once it is
    /// continued (`fg`, `bg`, SIGCONT).
    package func stopProcess() {
        signal(SIGTSTP, SIG_DFL)
        // Thread-directed, with SIGTSTP unblocked on this thread for the
        // moment: after dispatchMain the main queue runs on a Dispatch
        // worker, which blocks signals. The default action then stops
        // every thread here and now.
        var stopSignal = sigset_t()
        var previous = sigset_t()
        sigemptyset(&stopSignal)
        sigaddset(&stopSignal, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stopSignal, &previous)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        Self.installHandlers()
    }

    private static func installHandlers() {
        for (signalNumber, byte) in [(SIGTSTP, UInt8(ascii: "T")), (SIGCONT, UInt8(ascii: "C"))] {
            var action = sigaction()
            if byte == UInt8(ascii: "T") {
                action.__sigaction_handler.sa_handler = { _ in JobControl.notify(UInt8(ascii: "T")) }
            } else {
                action.__sigaction_handler.sa_handler = { _ in JobControl.notify(UInt8(ascii: "C")) }
            }
            action.sa_flags = Int32(SA_RESTART)
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Async-signal-safe: one write, errno preserved.
    private static func notify(_ byte: UInt8) {
        let saved = errno
        var value = byte
        _ = write(writer, &value, 1)
        errno = saved
    }
}
