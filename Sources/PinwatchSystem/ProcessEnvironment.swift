#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's environment, read once from `environ`. pinwatch never
/// changes its own environment. `ProcessInfo.environment` builds a new
/// dictionary at every call (four times in a `check` once), and its first
/// call alone was a measurable part of a `check`, mostly the Swift runtime
/// resolving the generic types Foundation's code names by mangled name
/// (Benchmarks/README.md, "Figures moved out of code comments").
package enum ProcessEnvironment {
    package static let current: [String: String] = read()

    /// `NAME=value` entries; the first of a repeated name wins, as getenv
    /// does; an entry without `=` is not a variable.
    static func read() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        // Sized once: growing it went through the runtime's mangled-name
        // lookup of its storage type at each resize.
        var variables = [String: String](minimumCapacity: count)
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
    }
}
