import Foundation

/// Benchmarks/run.sh measures the time from launch to the first painted
/// frame. The launcher puts its clock reading (ns since the epoch) in
/// `PINWATCH_BENCH_START_NS` and a file path in `PINWATCH_BENCH_TIMING`;
/// the first paint appends `first_frame_ms N` there. Without both
/// variables this does nothing.
struct FirstFrameTiming {
    private var pending: (path: String, startNanoseconds: Int64)?

    init(environment: [String: String]) {
        if let path = environment["PINWATCH_BENCH_TIMING"], let start = environment["PINWATCH_BENCH_START_NS"].flatMap(Int64.init) {
            pending = (path, start)
        }
    }

    mutating func framePainted() {
        guard let (path, start) = pending else { return }
        pending = nil
        let nowNanoseconds = Int64(Date().timeIntervalSince1970 * 1e9)
        let line = String(format: "first_frame_ms %.1f\n", Double(nowNanoseconds - start) / 1e6)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            handle.closeFile()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: Data(line.utf8))
        }
    }
}
