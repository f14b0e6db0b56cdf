import Foundation
import XCTest

/// A dashboard with nothing to say costs almost nothing: a frame a second
/// for the clock and the ages draws only the cells that changed, and a key
/// still paints at once. The binary counts its frames and the cells each
/// drew in `PINWATCH_BENCH_TIMING` (the first-frame timing file).
final class DashboardIdleTests: LocalFleetTestCase {
    func testAnIdleDashboardDrawsOnlyWhatChangedAndAKeyPaintsAtOnce() throws {
        let names = (0..<12).map { "idle\($0).test" }
        for name in names { try fleet.addOK(name) }
        try fleet.writeConfig(settings: ["interval: 1h"])
        let (session, frameLog) = try watchLoggingFrames(until: names)
        defer { session.close() }
        func frames() -> [Int] {
            frameLog().compactMap { words in words.count == 4 ? Int(words[3]) : nil }
        }
        let settled = frames()
        let whole = try XCTUnwrap(settled.max(), "the binary logged no frame")
        // The clock ("next in …") and the ages move once a second.
        try waitUntil(timeout: 10, "three more frames: \(frames())") { frames().count >= settled.count + 3 }
        let idle = frames().dropFirst(settled.count)
        XCTAssertTrue(idle.allSatisfy { $0 * 8 < whole }, "idle frames \(Array(idle)) against a whole one of \(whole) cells")
        XCTAssertLessThan(idle.count, 10, "about one frame a second: \(Array(idle))")

        let before = frames().count
        try session.send("?")
        try session.waitForScreen(timeout: 3) { $0.contains("help — any key closes") }
        // The binary logs a frame after the terminal has it, so tmux can
        // show the help a moment before the log says it was painted.
        try waitUntil(timeout: 3, "the help's frame was logged: \(frames())") { frames().count > before }
    }

    /// Probed every second, a steady fleet paints about twice a second
    /// (each cycle's end and the tick), not once per batch of results; a
    /// host that changes is painted as its result comes.
    func testAFleetProbedEverySecondPaintsAboutOnceASecond() throws {
        let names = (0..<12).map { "busy\($0).test" }
        for name in names.dropFirst() { try fleet.addOK(name) }
        // The first host's server is stopped midway, by the test.
        let (first, _) = try fleet.serveLeaf(names[0])
        fleet.add(LocalFleet.Host(name: names[0], port: first.port, ca: [LocalFleet.pin(fleet.root.certificate)]))
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let (session, frameLog) = try watchLoggingFrames(until: names)
        defer { session.close() }
        func frameTimes() -> [Double] { frameLog().compactMap { Double($0[1]) } }
        let start = try XCTUnwrap(frameTimes().last, "the binary logged no frame")
        try waitUntil(timeout: 15, "frames over 5 s: \(frameTimes())") { (frameTimes().last ?? 0) > start + 5_000 }
        let window = frameTimes().filter { $0 > start && $0 <= start + 5_000 }
        // A cycle's end and the tick: about two a second, not one per batch.
        XCTAssertLessThanOrEqual(window.count, 13, "five cycles of 12 hosts in 5 s: \(window)")

        first.stop()
        try session.waitForScreen(timeout: 5) { screen in
            screen.split(separator: "\n").contains { $0.contains(names[0] + ":") && $0.contains("error") }
        }
    }

    /// `watch` of the fleet's configuration under tmux, once every host in
    /// `names` is on screen after a cycle, and a reader of the frames it
    /// logged (the words of each `frame_ms` line).
    private func watchLoggingFrames(until names: [String]) throws -> (TmuxSession, () -> [[Substring]]) {
        let timing = fleet.directory.appendingPathComponent("frames.log")
        let invocation = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--no-bell", "--state", "off"]
            .map(TmuxSession.quote).joined(separator: " ")
        let session = try TmuxSession(
            command: invocation, columns: 160, rows: 40,
            environment: ["PINWATCH_BENCH_TIMING": timing.path, "PINWATCH_BENCH_START_NS": "0", "SWIFT_BACKTRACE": "interactive=no"])
        do {
            try session.waitForScreen(timeout: 20) { screen in
                screen.contains("last cycle") && names.allSatisfy { name in screen.contains(name) } && !screen.contains("waiting")
            }
        } catch {
            session.close()
            throw error
        }
        let frames: () -> [[Substring]] = {
            let text = (try? String(contentsOf: timing, encoding: .utf8)) ?? ""
            let lines: [[Substring]] = text.split(separator: "\n").map { $0.split(separator: " ") }
            return lines.filter { words in words.count >= 2 && words[0] == "frame_ms" }
        }
        return (session, frames)
    }
}
