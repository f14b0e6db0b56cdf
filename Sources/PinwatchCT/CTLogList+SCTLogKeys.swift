import Foundation
import PinwatchCore
import PinwatchSystem

extension CTLogList {
    /// What the probe checks SCTs with: each log's id, key, operator and state.
    package var sctLogKeys: SCTLogKeys {
        SCTLogKeys(logs.map { SCTLogKey(logID: $0.logID, key: $0.key, operatorName: $0.operatorName, state: $0.state) })
    }

    /// `ct: logs:` read (bounded) and parsed into the probe's keys: the one
    /// way a configuration's log list reaches SCT checks.
    package static func sctLogKeys(file path: String) throws -> SCTLogKeys {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, limit: maximumSize)
        } catch {
            throw CTFormatError(error.reason)
        }
        return try CTLogList(json: bytes).sctLogKeys
    }
}
