/// A file a user pointed pinwatch at (configuration, theme, `file:` pins,
/// trust bundle): what a read can go wrong with. The reading itself is
/// I/O, so it lives in `PinwatchSystem`; Core only words the failures.
public enum RegularFile {
    public struct ReadError: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        /// Where in a text file the problem is, when it is in the contents.
        public var line: Int?

        public init(path: String, reason: String, line: Int? = nil) {
            self.path = path
            self.reason = reason
            self.line = line
        }

        public var description: String { "\(path): \(reason)" }
    }

    /// Reads a file's text, bounded to `limit` bytes; injected wherever
    /// Core needs a file's contents.
    public typealias TextReader = @Sendable (_ path: String, _ limit: Int) throws(ReadError) -> String

    /// The line of the first byte that is not UTF-8 (1 past the end when all are).
    public static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int {
        var line = 1
        var iterator = bytes.makeIterator()
        var decoder = Unicode.UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput, .error: return line
            }
        }
    }

    public static let noSuchFile = "no such file"
}
