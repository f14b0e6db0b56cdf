import Glibc
import PinwatchCore

extension LocalResourceShortage {
    /// The shortage an `errno` from creating a socket, pipe or epoll
    /// instance means, if it means one: these say nothing about the host.
    init?(errno code: Int32) {
        switch code {
        case EMFILE, ENFILE: self = .descriptors
        case ENOMEM, ENOBUFS: self = .memory
        default: return nil
        }
    }
}
