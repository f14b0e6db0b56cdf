import Foundation
import PinwatchCore

extension CTLogList {
    /// What the probe checks SCTs with: each log's id, key, operator and state.
    package var sctLogKeys: SCTLogKeys {
        SCTLogKeys(logs.map { SCTLogKey(logID: $0.logID, key: $0.key, operatorName: $0.operatorName, state: $0.state) })
    }

    /// `ct: logs:` (a file, or `built-in`) read and parsed into the probe's
    /// keys: the one way a configuration's log list reaches SCT checks.
    package static func sctLogKeys(configured logList: String) throws -> SCTLogKeys {
        try load(configured: logList).sctLogKeys
    }
}
