#if canImport(Glibc)
import Glibc
#endif

/// This process's CPU time, user and system, to the microsecond
/// (`getrusage`): the benchmarks time single probes and cycles with it,
/// where /proc's clock ticks (`ProcessFigures`) are too coarse.
package enum ProcessCPUTime {
    package static func seconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
