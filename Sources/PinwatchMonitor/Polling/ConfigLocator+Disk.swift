import Foundation
import PinwatchCore

extension ConfigLocator {
    /// DESIGN §4's lookup, asking the disk which candidates are files.
    package static func locate(explicit: String?, currentDirectory: String, environment: [String: String]) -> String? {
        locate(explicit: explicit, currentDirectory: currentDirectory, environment: environment) { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}
