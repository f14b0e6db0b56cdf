import Foundation
import PinwatchCore
import PinwatchSystem

extension CTLogList {
    /// The copy of Google's public list built into pinwatch (ct/SOURCES.md):
    /// dated, `timestamp` says of when.
    package static func builtIn() throws(CTFormatError) -> CTLogList {
        try CTLogList(json: Array(BuiltinLogListData.json.utf8))
    }

    /// The list `ct: {logs: …}` names: the built-in copy for `built-in`
    /// (`CTSetting.builtInLogList`), else the regular file at that path,
    /// read up to `maximumSize`. Following logs and checking SCTs both read
    /// it here.
    package static func load(configured logList: String) throws(CTFormatError) -> CTLogList {
        if logList == CTSetting.builtInLogList { return try builtIn() }
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(logList, limit: maximumSize)
        } catch {
            throw CTFormatError("log list \(EchoedInput.quoted(logList)): cannot be read: \(error.reason)")
        }
        do {
            return try CTLogList(json: bytes)
        } catch {
            throw CTFormatError("\(logList): \(error.description)")
        }
    }
}
