import XCTest

/// A test case with a fresh `LocalFleet` per test, stopped after it.
class LocalFleetTestCase: XCTestCase {
    var fleet: LocalFleet!

    override func setUpWithError() throws {
        try super.setUpWithError()
        fleet = try LocalFleet()
    }

    override func tearDown() {
        fleet?.stop()
        fleet = nil
        super.tearDown()
    }
}
