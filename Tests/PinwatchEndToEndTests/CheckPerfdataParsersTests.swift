import Foundation
import PinwatchTestSupport
import XCTest

/// `check`'s perfdata read by the parsers monitoring systems use:
/// Monitoring::Plugin (Debian's libmonitoring-plugin-perl) and pynag
/// (python3-pynag), both installed by .ci/run. Each rates every host's
/// days left against the thresholds `check` wrote, with the plugin range
/// semantics, and must agree with the host's own expiry verdict.
final class CheckPerfdataParsersTests: LocalFleetTestCase {
    private static let perl = "/usr/bin/perl"
    private static let python = "/usr/bin/python3"

    /// Each `_days` metric as `label status` (0 ok, 1 warning, 2 critical), one a line.
    private static let perlRater = """
        use Monitoring::Plugin::Performance;
        my $text = do { local $/; <STDIN> };
        $text =~ s/^[^|]*\\|//; $text =~ s/\\n.*//s;
        for my $p (Monitoring::Plugin::Performance->parse_perfstring($text)) {
            next unless $p->label =~ /_days$/;
            print $p->label, " ", $p->threshold->get_status($p->value), "\\n";
        }
        """

    private static let pythonRater = """
        import sys
        from pynag.Utils import PerfData
        text = sys.stdin.read().split("\\n")[0].split("|", 1)[1]
        for metric in PerfData(text).metrics:
            if metric.label.endswith("_days"):
                print(metric.label, metric.get_status())
        """

    private func rate(_ checkOutput: String, with interpreter: String, _ flag: String, _ script: String) throws -> [String: Int] {
        let input = try fleet.write(checkOutput, to: "check.txt")
        let outcome = try PinwatchBinary.runShell(
            "\(interpreter) \(flag) \(TmuxSession.quote(script)) < \(TmuxSession.quote(input.path))")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        var statuses: [String: Int] = [:]
        for line in outcome.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let status = Int(parts[1]) { statuses[String(parts[0])] = status }
        }
        return statuses
    }

    func testBothPluginParsersRateDaysLeftAsTheAlertsDo() throws {
        let perlReady = (try? PinwatchBinary.runShell("\(Self.perl) -MMonitoring::Plugin::Performance -e 1"))?.status == 0
        try TestEnvironment.require(
            perlReady, "Monitoring::Plugin is not installed (apt-get install libmonitoring-plugin-perl)", skip: { XCTSkip($0) })
        let pynagReady = (try? PinwatchBinary.runShell("\(Self.python) -c 'import pynag.Utils'"))?.status == 0
        try TestEnvironment.require(pynagReady, "pynag is not installed (apt-get install python3-pynag)", skip: { XCTSkip($0) })

        let healthy = try fleet.addOK("healthy.test")
        let soon = try fleet.addExpiring("soon.test", daysLeft: 14.5)
        let urgent = try fleet.addExpiring("urgent.test", daysLeft: 3.5)
        try fleet.writeConfig()
        let check = try fleet.run(["check", "--state", "off"])
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("'soon.test:\(soon.port)_days'=14;21:;7:"), check.stdout)

        let expected = [
            "healthy.test:\(healthy.port)_days": 0, "soon.test:\(soon.port)_days": 1, "urgent.test:\(urgent.port)_days": 2,
        ]
        XCTAssertEqual(try rate(check.stdout, with: Self.perl, "-e", Self.perlRater), expected, "Monitoring::Plugin")
        XCTAssertEqual(try rate(check.stdout, with: Self.python, "-c", Self.pythonRater), expected, "pynag")
    }
}
