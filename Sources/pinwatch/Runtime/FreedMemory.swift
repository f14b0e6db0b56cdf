import CLinux

/// Heap that was freed, handed back to the system (glibc's `malloc_trim`).
/// A fleet's rows are read on the reading threads, in their own arenas, and
/// let go as they become the state's reports, made on the main thread:
/// without it their pages stay resident beside the reports.
enum FreedMemory {
    static func release() {
        _ = malloc_trim(0)
    }
}
