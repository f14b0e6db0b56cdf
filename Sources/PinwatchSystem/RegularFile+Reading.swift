import PinwatchCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads a file a user pointed pinwatch at (configuration, theme, `file:`
/// pins, trust bundle), refusing anything that is not a regular file.
///
/// A FIFO would block `open` and `read` forever, a device could stream
/// without end and a directory has no contents: each is reported by name,
/// and a regular file is read only up to `limit` bytes.
extension RegularFile {
    package static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ReadError(path: path, reason: openFailure(errno))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ReadError(path: path, reason: String(cString: strerror(errno)))
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            throw ReadError(path: path, reason: "\(describe(fileType: type)), not a regular file")
        }
        guard Int(status.st_size) <= limit else {
            throw ReadError(path: path, reason: "larger than \(sizeText(limit))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var filled = 0
        // The file may grow while it is read: stop one byte past the limit.
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            filled += count
            if filled == bytes.count, filled <= limit {
                bytes += [UInt8](repeating: 0, count: min(64 * 1024, limit + 1 - filled))
            }
        }
        guard filled <= limit else {
            throw ReadError(path: path, reason: "larger than \(sizeText(limit))")
        }
        return Array(bytes.prefix(filled))
    }

    /// Decodes UTF-8 text, naming the line of the first byte that is not.
    package static func readText(_ path: String, limit: Int) throws(ReadError) -> String {
        let bytes = try read(path, limit: limit)
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        throw ReadError(path: path, reason: "not UTF-8 text; save it as UTF-8", line: firstInvalidUTF8Line(bytes))
    }

    private static func openFailure(_ code: Int32) -> String {
        switch code {
        case ENOENT: return noSuchFile
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "a directory, not a regular file"
        default: return String(cString: strerror(code))
        }
    }

    private static func describe(fileType: mode_t) -> String {
        switch fileType {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    private static func sizeText(_ bytes: Int) -> String {
        bytes >= 1024 * 1024 ? "\(bytes / (1024 * 1024)) MiB" : "\(bytes / 1024) KiB"
    }
}

extension RegularFile {
    /// The names in the directory `path` (hidden ones included, `.` and
    /// `..` not), refusing one with more than `limit` entries.
    package static func listDirectory(_ path: String, limit: Int) throws(ReadError) -> [String] {
        guard let directory = opendir(path) else {
            let reason = errno == ENOTDIR ? "not a directory" : errno == ENOENT ? "no such directory" : String(cString: strerror(errno))
            throw ReadError(path: path, reason: reason)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name == "." || name == ".." { continue }
            guard names.count < limit else {
                throw ReadError(path: path, reason: "more than \(limit) entries")
            }
            names.append(name)
        }
        return names
    }
}
