import Foundation

/// Gives the terminal back on a fatal error, where no Swift code can run
/// cleanly any more: the saved terminal modes are restored with tcsetattr
/// (async-signal-safe) and the alternate screen and cursor are reset with a
/// plain write, then the signal is raised again so the process still dies
/// with it (and dumps core where configured).
package enum TerminalGuard {
    /// Written once, before any handler is installed; read only by the
    /// handlers, which cannot take arguments. Heap memory with room to
    /// spare rather than a `termios` global: AddressSanitizer caught
    /// tcgetattr writing 60 bytes into a global Swift had laid out as 57.
    nonisolated(unsafe) private static let savedModes: UnsafeMutablePointer<termios> = {
        let bytes = max(256, MemoryLayout<termios>.stride)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        return raw.bindMemory(to: termios.self, capacity: 1)
    }()
    nonisolated(unsafe) private static var hasSavedModes = false

    package static func install() {
        guard tcgetattr(STDIN_FILENO, savedModes) == 0 else { return }
        hasSavedModes = true
        for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signalNumber in
                TerminalGuard.restoreAfterFatal()
                TerminalGuard.reraise(signalNumber)
            }
            // SA_RESETHAND is 0x80000000 on Linux: past Int32.max, so a
            // checked conversion traps; the flag is a bit pattern.
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigemptyset(&action.sa_mask)
            sigaction(fatal, &action, nil)
        }
    }

    /// Leaves the alternate screen, shows the cursor, resets colours, and
    /// turns off what `keypad` and `mousemask` turned on (every mouse
    /// reporting mode ncurses may pick, application cursor keys and
    /// keypad), which `endwin` would have: a shell left in mouse mode
    /// prints escapes at every click.
    private static func restoreAfterFatal() {
        if hasSavedModes { tcsetattr(STDIN_FILENO, TCSANOW, savedModes) }
        let reset: StaticString =
            "\u{1B}[0m\u{1B}[?25h\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l\u{1B}[?1015l\u{1B}[?1l\u{1B}>\u{1B}[?1049l\r\n"
        _ = write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
    }

    /// Dies of `signalNumber` as if it had never been handled.
    package static func reraise(_ signalNumber: Int32) -> Never {
        signal(signalNumber, SIG_DFL)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        raise(signalNumber)
        exit(128 + signalNumber)
    }
}
