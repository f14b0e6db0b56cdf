import PinwatchCore

#if canImport(Glibc)
import Glibc
#endif

/// The running process's figures from /proc/self, as the Prometheus client
/// libraries read them for their `process_*` series.
extension ProcessFigures {
    /// Start time does not change: /proc/stat (the boot time) is read once.
    private static let ownStartTime: Double? = {
        guard let stat = procFields(), stat.count > 19, let ticksSinceBoot = Double(stat[19]),
            let bootTime = bootTime(), ticksPerSecond > 0
        else { return nil }
        return bootTime + ticksSinceBoot / ticksPerSecond
    }()

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Now; a figure /proc does not give is nil.
    package static func readOwn() -> ProcessFigures {
        var figures = ProcessFigures(startTime: ownStartTime)
        if let stat = procFields(), stat.count > 21 {
            if let user = Double(stat[11]), let system = Double(stat[12]), ticksPerSecond > 0 {
                figures.cpuSeconds = (user + system) / ticksPerSecond
            }
            if let pages = Int(stat[21]) { figures.residentMemoryBytes = pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
        }
        // RLIM_INFINITY (all bits set) does not import as a Swift constant.
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            figures.maximumDescriptors = Int(clamping: limit.rlim_cur)
        }
        figures.openDescriptors = openDescriptorCount()
        return figures
    }

    /// /proc/self/stat's fields after the command name, which is in
    /// parentheses and may itself hold spaces: index 0 is field 3 (state).
    private static func procFields() -> [Substring]? {
        guard let text = readProc("/proc/self/stat", limit: 4_096),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    private static func bootTime() -> Double? {
        // The interrupt counters before `btime` grow with the CPU count.
        if let text = readProc("/proc/stat", limit: 1 << 20) {
            for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
                return Double(line.dropFirst("btime ".count).trimmingCharacters())
            }
        }
        // systemd's ProcSubset=pid hides /proc/stat: the wall clock less the
        // time since boot is the same instant, in whole seconds as btime is.
        var wall = timespec()
        var sinceBoot = timespec()
        guard clock_gettime(CLOCK_REALTIME, &wall) == 0, clock_gettime(CLOCK_BOOTTIME, &sinceBoot) == 0 else { return nil }
        let seconds = Double(wall.tv_sec - sinceBoot.tv_sec) + Double(wall.tv_nsec - sinceBoot.tv_nsec) / 1e9
        return seconds.rounded(.down)
    }

    /// Entries of /proc/self/fd, less the one the listing itself holds open.
    private static func openDescriptorCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return max(0, count - 1)
    }

    /// A /proc file (its size reads as 0, so it is read until end of file),
    /// at most `limit` bytes.
    private static func readProc(_ path: String, limit: Int) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, limit - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            filled += count
        }
        return String(decoding: bytes[..<filled], as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        drop { $0 == " " }.prefix { $0 != " " && $0 != "\n" }
    }
}
