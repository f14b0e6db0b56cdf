import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchUI

import enum PinwatchSystem.ProcessEnvironment

extension Pinwatch {
    /// The built-in showcase: every status on local servers, and the
    /// rotation story played live.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Run the dashboard on a built-in local demo: every status, and a live intermediate rotation.",
            discussion: """
                Generates a PKI in memory, starts TLS servers on 127.0.0.1 inside this process and \
                watches them; needs no network and leaves no files or ports behind. After the second \
                cycle it rotates the intermediate of \(DemoFleet.rotatingHost), which turns from ok to \
                leaf_only; after the fourth it renews \(DemoFleet.poolHost), pinned to one intermediate \
                of a pool of five, under a sibling, which turns it blocked. With --snapshot it runs one \
                cycle and prints it instead.
                """
        )

        @Flag(help: "Run one cycle and print it instead of opening the dashboard.")
        var snapshot = false

        @OptionGroup(title: "With --snapshot") var output: SnapshotOutput

        @Option(help: ArgumentHelp("Theme: a name or a path to a YAML file.", valueName: "name|path"), completion: CompletionChoices.themes)
        var theme: String?

        @Option(help: ArgumentHelp("Poll period of the demo dashboard.", valueName: "duration"))
        var interval: String = "5s"

        @Flag(help: "Do not ring the bell.")
        var noBell = false

        @Flag(help: "Leave the mouse to the terminal (no wheel scrolling or click to select).")
        var noMouse = false

        func validate() throws {
            _ = try IntervalOption.seconds(interval)
        }

        func run() throws {
            try reportingFailures {
                if !snapshot { try Watch.requireTerminal() }
                let fleet: DemoFleet
                do {
                    fleet = try DemoFleet()
                } catch {
                    throw UserFacingError(message: "cannot start the demo servers: \(error)", code: 1)
                }
                var config = fleet.config
                if let seconds = ConfigDuration.parse(interval) {
                    config.interval = seconds
                    // The demo's own deadline yields to a faster interval.
                    config.timeout = min(config.timeout, seconds)
                }
                let chosenTheme = try ThemeChoice.load(requested: theme, config: config, colorCount: 256)
                if snapshot {
                    try output.printCycle(
                        config: config, environment: fleet.environment, theme: chosenTheme, history: try DemoHistory.open())
                    fleet.stop()
                    return
                }
                let hooks = MonitorSource.Hooks(cycleFinished: { cycle, controller in
                    do {
                        switch cycle {
                        case 2:
                            try fleet.rotateIntermediate()
                            controller.announce(
                                "demo: rotated the intermediate of \(DemoFleet.rotatingHost) (new CA key) — watch it turn leaf_only on the next cycle"
                            )
                        case 4:
                            // Later, so the pool warning is seen before it comes true.
                            try fleet.rotateWithinPool()
                            controller.announce(
                                "demo: \(DemoFleet.poolHost) renewed under a sibling pool intermediate (Demo Pool CA 3) — watch it turn blocked"
                            )
                        default:
                            return
                        }
                    } catch {
                        controller.announce("demo: rotation failed: \(error)")
                    }
                })
                let controller = try Watch.makeController(
                    config: config, environment: fleet.environment, theme: chosenTheme, bell: !noBell, mouse: !noMouse, hooks: hooks,
                    history: try DemoHistory.open(),
                    display: output.display.choice(config: config, environment: ProcessEnvironment.current))
                controller.announce(
                    "demo: \(config.hosts.count) local hosts; the intermediate of \(DemoFleet.rotatingHost) rotates after the second cycle, "
                        + "\(DemoFleet.poolHost) moves within its pool after the fourth")
                controller.run()
            }
        }

    }
}
