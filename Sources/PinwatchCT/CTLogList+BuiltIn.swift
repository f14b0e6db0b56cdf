import Foundation
import PinwatchCore

extension CTLogList {
    /// The copy of Google's public list built into pinwatch (ct/SOURCES.md):
    /// dated, `timestamp` says of when.
    package static func builtIn() throws(CTFormatError) -> CTLogList {
        try CTLogList(json: Array(BuiltinLogListData.json.utf8))
    }

    /// The list `ct: {logs: …}` names: the built-in copy for `built-in`
    /// (`CTSetting.builtInLogList`), else the file at that path, read up
    /// to `maximumSize`.
    package static func load(configured logList: String) throws(CTFormatError) -> CTLogList {
        if logList == CTSetting.builtInLogList { return try builtIn() }
        guard let handle = FileHandle(forReadingAtPath: logList) else {
            throw CTFormatError("log list \(EchoedInput.quoted(logList)): cannot be read")
        }
        defer { try? handle.close() }
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw CTFormatError("log list \(EchoedInput.quoted(logList)): \(error.localizedDescription)")
        }
        do {
            return try CTLogList(json: [UInt8](bytes))
        } catch {
            throw CTFormatError("\(logList): \(error.description)")
        }
    }
}
