import Foundation

/// Benchmarks/run.sh measures the time from launch to the first painted
/// frame; Benchmarks/dashboard-idle.sh and the dashboard's idling test
/// count the frames painted and the cells each drew. The launcher puts its
/// clock reading (ns since the epoch) in `PINWATCH_BENCH_START_NS` and a
/// file path in `PINWATCH_BENCH_TIMING`; the first paint appends
/// `first_frame_ms N` there, and every paint that drew a cell appends
/// `frame_ms N cells C`. Without both variables this does nothing.
struct FrameTiming {
    private var log: (path: String, startNanoseconds: Int64)?
    private var first = true

    init(environment: [String: String]) {
        if let path = environment["PINWATCH_BENCH_TIMING"], let start = environment["PINWATCH_BENCH_START_NS"].flatMap(Int64.init) {
            log = (path, start)
        }
    }

    mutating func framePainted(cells: Int) {
        guard let (path, start) = log else { return }
        let milliseconds = Double(Int64(Date().timeIntervalSince1970 * 1e9) - start) / 1e6
        var text = ""
        if first { text += String(format: "first_frame_ms %.1f\n", milliseconds) }
        first = false
        if cells > 0 { text += String(format: "frame_ms %.1f cells %d\n", milliseconds, cells) }
        guard !text.isEmpty else { return }
        Self.append(text, to: path)
    }

    /// `text` at the end of the log at `path` (the fleet view's refreshes too).
    static func append(_ text: String, to path: String) {
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            handle.closeFile()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        }
    }
}
