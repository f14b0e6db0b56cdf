import PinwatchHistory

/// The demo remembers within its run only: an in-memory store, so the
/// timeline and forecast work and no file is left behind.
enum DemoHistory {
    static func open() throws -> HistoryStore {
        do {
            return try HistoryStore(path: HistoryStore.inMemoryPath, mode: .writer)
        } catch {
            throw UserFacingError(message: error.description)
        }
    }
}
