import Foundation
import PinwatchTestSupport
import XCTest

/// `/probe?pinset=NAME` with a misspelt name: the same "did you
/// mean" the configuration gives, through the real exporter.
final class ServeProbePinsetHintTests: ServeOnFleetTestCase {
    func testAMisspeltPinsetGetsTheNearestName() throws {
        let ok = try fleet.addOK("ok.test")
        try fleet.writeConfig(pinsets: ["prod-ca": [LocalFleet.pin(fleet.root.certificate)]])
        let port = try startServe()

        let misspelt = try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)&pinset=prod-cs")
        XCTAssertEqual(misspelt.status, 400, misspelt.body)
        XCTAssertTrue(misspelt.body.contains("unknown pinset \"prod-cs\" (did you mean prod-ca?)"), misspelt.body)

        let unrelated = try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)&pinset=staging")
        XCTAssertEqual(unrelated.status, 400, unrelated.body)
        XCTAssertTrue(unrelated.body.contains("unknown pinset \"staging\""), unrelated.body)
        XCTAssertFalse(unrelated.body.contains("did you mean"), "nothing is near enough: \(unrelated.body)")

        let spelt = try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)&pinset=prod-ca")
        XCTAssertEqual(spelt.status, 200, spelt.body)
    }
}
