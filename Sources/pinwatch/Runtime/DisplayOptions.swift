import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchUI

/// `--ascii` and `--utc`: how the screens and text reports draw glyphs and
/// times.
struct DisplayOptions: ParsableArguments {
    @Flag(help: "Draw every symbol, box and arrow in ASCII (also chosen by a locale that is not UTF-8, e.g. LANG=C).")
    var ascii = false

    @Flag(help: "Show every time in UTC instead of the local zone (also utc: true in the configuration).")
    var utc = false

    func choice(config: Config?, environment: [String: String]) -> DisplayChoice {
        DisplayChoice(ascii: ascii, utc: utc, config: config, environment: environment)
    }
}

/// What `DisplayOptions`, the configuration and the locale decided together.
struct DisplayChoice {
    var asciiOnly = false
    /// False: the local zone, named wherever a time is shown.
    var utc = false

    init() {}

    init(ascii: Bool, utc: Bool, config: Config?, environment: [String: String]) {
        asciiOnly = ascii || ASCIIGlyphs.localeIsASCII(environment)
        self.utc = utc || config?.utc == true
    }

    /// `text` as this choice prints it.
    func text(_ text: String) -> String { asciiOnly ? ASCIIGlyphs.transliterate(text) : text }

    func apply(to state: inout DashboardState) {
        state.asciiOnly = asciiOnly
        if utc, let zone = TimeZone(identifier: "UTC") { state.timeZone = zone }
    }
}
