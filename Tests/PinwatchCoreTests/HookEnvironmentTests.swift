import Foundation
import PinwatchCore
import XCTest

/// A hook's environment: the minimal set plus its `env:` (DESIGN §15).
final class HookEnvironmentTests: XCTestCase {
    func testOnlyTheMinimalSetAndTheAllowedNamesPass() {
        let process = [
            "PATH": "/usr/bin:/bin", "HOME": "/var/lib/pinwatch", "LANG": "C.UTF-8", "LC_TIME": "C", "TZ": "UTC",
            "PINWATCH_WEBHOOK_URL": "https://hooks.example/x", "https_proxy": "http://ops:S3cr3t@proxy:3128",
            "HTTPS_PROXY": "http://ops:S3cr3t@proxy:3128", "AWS_SECRET_ACCESS_KEY": "k", "SLACK_TOKEN": "t",
            "PATHEXT": "not PATH", "XLC_ALL": "not LC_",
        ]
        XCTAssertEqual(
            HookEnvironment.entries(from: process, allowing: ["SLACK_TOKEN", "NOT_SET"]),
            [
                "HOME=/var/lib/pinwatch", "LANG=C.UTF-8", "LC_TIME=C", "PATH=/usr/bin:/bin",
                "PINWATCH_WEBHOOK_URL=https://hooks.example/x", "SLACK_TOKEN=t", "TZ=UTC",
            ])
    }

    func testEnvIsAListOfVariableNames() throws {
        let loader = ConfigLoader { _ in [] }
        let path = NSTemporaryDirectory() + "/p.yaml"
        let config = try loader.load(
            yaml: """
                hooks:
                  - {command: [/etc/pinwatch/hooks/slack-webhook.sh], env: [SLACK_TOKEN, http_proxy]}
                """, path: path)
        XCTAssertEqual(
            config.hooks, [HookCommand(arguments: ["/etc/pinwatch/hooks/slack-webhook.sh"], environment: ["SLACK_TOKEN", "http_proxy"])])
        let bad = """
            hooks:
              - {command: [/bin/true], env: SLACK_TOKEN}
              - {command: [/bin/true], env: ["SLACK_TOKEN=xoxb-1"]}
              - {command: [/bin/true], env: [1ST]}
            """
        XCTAssertThrowsError(try loader.load(yaml: bad, path: path)) { error in
            let keys = (error as? ConfigError)?.problems.map(\.key) ?? []
            XCTAssertEqual(keys, ["hooks[0].env", "hooks[1].env", "hooks[2].env"], "\(error)")
        }
    }
}
