import Dispatch
import PinwatchCore

/// One target handed to an event loop, with where its result goes.
struct ProbeJob {
    var target: ProbeTarget
    var index: Int
    var cycle: ProbeCycle
    /// When the probe was admitted: its deadline counts from here.
    var admittedAt: UInt64 = DispatchTime.now().uptimeNanoseconds
}

/// What a probe waits for next on its socket.
enum SocketInterest {
    case readable
    case writable
}

/// The phases of a probe, named as timeout messages name them.
enum ProbePhase: String {
    case resolving = "DNS resolution"
    case connecting = "the TCP connect"
    case proxying = "the proxy handshake"
    case startingTLS = "the STARTTLS dialogue"
    case handshaking = "the TLS handshake"
    case finished = "finishing"
}
