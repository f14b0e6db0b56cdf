import Foundation
import PinwatchCore

/// The modification times of the client pin files a configuration reads,
/// so the Monitor reads them again when an app's pins change on disk.
package struct ClientSourceStamps: Equatable, Sendable {
    private var stamps: [String: Date?]

    package init(_ config: Config) {
        var stamps: [String: Date?] = [:]
        for source in config.clientSources {
            guard case .file(let path) = source.location else { continue }
            stamps[path] = Self.modified(path)
        }
        self.stamps = stamps
    }

    /// True when a file changed, appeared or went away since these were taken.
    package var changedOnDisk: Bool {
        stamps.contains { path, stamp in Self.modified(path) != stamp }
    }

    private static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
