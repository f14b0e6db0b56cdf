import Foundation

#if FUZZING
// Built by scripts/fuzz with `-sanitize=fuzzer,address -D FUZZING`. SwiftPM
// names the executable's entry point itself, so main hands over to
// libFuzzer's driver rather than libFuzzer's own main; the target is chosen
// by PINWATCH_FUZZ_TARGET because one binary serves them all.
private let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PINWATCH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set PINWATCH_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

// libFuzzer's archive brings its own main as well, which needs this name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@main
enum FuzzDriver {
    static func main() {
        _ = selectedTarget
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
    }
}
#else
/// `pinwatch-fuzz TARGET PATH...`: runs each file (or each file in each
/// folder) through one target once. The test suite replays the committed
/// corpus this way in an ordinary build, so a past finding stays fixed.
@main
enum FuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: pinwatch-fuzz \(names) FILE|FOLDER...\n".utf8))
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                guard let bytes = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("pinwatch-fuzz: cannot read \(file)\n".utf8))
                    exit(1)
                }
                target.run(Array(bytes))
                count += 1
            }
        }
        print("\(name): \(count) inputs replayed")
    }

    private static func files(at path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { "\(path)/\($0)" }
    }
}
#endif
