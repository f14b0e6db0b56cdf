import Foundation
import PinwatchCore
import PinwatchMonitor
import XCTest

/// DESIGN §4's lookup order against real folders.
final class ConfigLocatorTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pinwatch-locator-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testLocatorOrder() throws {
        let cwd = directory + "/cwd"
        let xdg = directory + "/xdg"
        let home = directory + "/home"
        for folder in [cwd, xdg + "/pinwatch", home + "/.config/pinwatch"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let environment = ["XDG_CONFIG_HOME": xdg, "HOME": home]
        XCTAssertEqual(ConfigLocator.locate(explicit: "/x.yaml", currentDirectory: cwd, environment: environment), "/x.yaml")
        XCTAssertNil(ConfigLocator.locate(explicit: nil, currentDirectory: cwd, environment: environment))

        XCTAssertTrue(FileManager.default.createFile(atPath: home + "/.config/pinwatch/config.yaml", contents: Data()))
        XCTAssertNil(
            ConfigLocator.locate(explicit: nil, currentDirectory: cwd, environment: environment), "XDG_CONFIG_HOME replaces ~/.config")
        XCTAssertEqual(
            ConfigLocator.locate(explicit: nil, currentDirectory: cwd, environment: ["HOME": home]), home + "/.config/pinwatch/config.yaml")

        XCTAssertTrue(FileManager.default.createFile(atPath: xdg + "/pinwatch/config.yaml", contents: Data()))
        XCTAssertEqual(ConfigLocator.locate(explicit: nil, currentDirectory: cwd, environment: environment), xdg + "/pinwatch/config.yaml")

        XCTAssertTrue(FileManager.default.createFile(atPath: cwd + "/pinwatch.yaml", contents: Data()))
        XCTAssertEqual(ConfigLocator.locate(explicit: nil, currentDirectory: cwd, environment: environment), cwd + "/pinwatch.yaml")
    }
}
