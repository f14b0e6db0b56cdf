import Foundation

/// One writer per state file: an exclusive `flock` on `PATH.lock`, which
/// holds the writer's PID so the second instance can say who has it. The
/// kernel drops the lock when the holder dies, `kill -9` included.
final class StateLock {
    private let descriptor: Int32

    init(path: String) throws(HistoryError) {
        let lockPath = path + ".lock"
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw HistoryError(path, "cannot create the folder \(folder) (\(Self.reason(errno)))", unavailable: true)
            }
        }
        descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HistoryError(path, "cannot create \(lockPath) (\(Self.reason(errno)))", unavailable: true)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            let holder = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            let who = Int32(holder).map { "pinwatch (PID \($0))" } ?? "another pinwatch"
            throw HistoryError(
                path, "is in use by \(who); give this one its own --state PATH, or use `pinwatch history` to read it", inUse: true,
                holderPID: Int32(holder))
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.utf8.count, 0)
    }

    deinit {
        close(descriptor)
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
