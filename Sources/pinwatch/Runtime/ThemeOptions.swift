import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchSystem
import PinwatchUI

/// Loads the theme a command asked for, falling back to `mono` where colour
/// must not be used (NO_COLOR, or a terminal with fewer than 8 colours).
enum ThemeChoice {
    static func load(
        requested: String?, config: Config?, colorCount: Int, environment: [String: String] = ProcessEnvironment.current
    ) throws -> Theme {
        let mono = ThemeLoader.prefersMono(environment: environment, colorCount: colorCount)
        return try named(mono ? "mono" : (requested ?? config?.theme ?? "default"), environment: environment)
    }

    /// The theme by name or path, whatever the terminal: the dashboard
    /// decides on colour once its screen opens and can say how many it has.
    static func named(_ name: String, environment: [String: String] = ProcessEnvironment.current) throws -> Theme {
        do {
            return try ThemeLoader.load(
                nameOrPath: name, currentDirectory: FileManager.default.currentDirectoryPath,
                environment: environment, executablePath: executablePath)
        } catch {
            throw UserFacingError(message: "theme: \(error)")
        }
    }

    static func availableNames(environment: [String: String] = ProcessEnvironment.current) -> [String] {
        ThemeLoader.availableNames(
            currentDirectory: FileManager.default.currentDirectoryPath, environment: environment,
            executablePath: executablePath)
    }

    static var executablePath: String? {
        Bundle.main.executablePath ?? CommandLine.arguments.first
    }
}

extension DashboardState {
    /// The dashboard's state for a configuration, with the header's proxy
    /// indicator worked out from the environment.
    static func make(
        config: Config, environment: [String: String], themeName: String, display: DisplayChoice = DisplayChoice(),
        now: Date = Date()
    ) -> DashboardState {
        let proxy = ProxyResolver(environment: environment).indicator(setting: config.proxy)
        var state = DashboardState(
            config: config, proxyIndicator: proxy.map { "proxy \($0.redactedURL) (\($0.source))" }, themeName: themeName)
        display.apply(to: &state)
        state.describeCatalogue(config.catalogue, now: now)
        return state
    }

    /// The header's word on the CA data: its date, and whether it is stale.
    mutating func describeCatalogue(_ catalogue: Catalogue, now: Date) {
        catalogueNote = CatalogueListing.dataSummary(catalogue, now: now)
        catalogueStale = catalogueNote?.hasSuffix("(stale)") == true
    }
}
