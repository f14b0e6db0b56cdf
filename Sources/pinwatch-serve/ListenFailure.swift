import Glibc
import NIOCore

/// Why `serve` could not listen, in the words an operator acts on: NIO's
/// own text (`bind(descriptor:ptr:bytes:): Address already in use (errno:
/// 98)`) names a system call, not the cause.
enum ListenFailure {
    static func describe(_ error: Error, address: String) -> String {
        let cause: String
        switch (error as? IOError)?.errnoCode {
        case EADDRINUSE:
            cause = "the address is already in use (another pinwatch serve? `ss -ltnp` shows what listens there)"
        case EADDRNOTAVAIL:
            cause = "no interface of this machine has that address"
        case EACCES:
            cause = "permission denied (ports below 1024 need privileges)"
        default:
            cause = "\(error)"
        }
        return "cannot listen on \(address): \(cause)"
    }
}
