import Foundation

/// A colour as a theme file names it, before it meets a terminal.
package enum TerminalColor: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case terminalDefault
    /// A palette index 0–255 (the 16 names are 0–15).
    case indexed(Int)
    /// `#rrggbb`, mapped to the nearest palette entry the terminal has.
    case rgb(red: Int, green: Int, blue: Int)

    static let names: [String: Int] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "bright-black": 8, "gray": 8, "grey": 8, "bright-red": 9, "bright-green": 10, "bright-yellow": 11,
        "bright-blue": 12, "bright-magenta": 13, "bright-cyan": 14, "bright-white": 15,
    ]

    /// Parses `green`, `bright-blue`, `208`, `#ff8700` or `default`; nil if none of those.
    package init?(parsing text: String) {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: "-")
        if word == "default" || word == "none" {
            self = .terminalDefault
        } else if let index = Self.names[word] {
            self = .indexed(index)
        } else if let index = Int(word), (0...255).contains(index) {
            self = .indexed(index)
        } else if word.hasPrefix("#"), word.count == 7, let value = Int(word.dropFirst(), radix: 16) {
            self = .rgb(red: (value >> 16) & 0xFF, green: (value >> 8) & 0xFF, blue: value & 0xFF)
        } else {
            return nil
        }
    }

    /// The palette index to use on a terminal with `colorCount` colours, or
    /// nil for the terminal's default (also when it has no colours at all).
    package func paletteIndex(colorCount: Int) -> Int? {
        guard colorCount >= 8 else { return nil }
        switch self {
        case .terminalDefault:
            return nil
        case .indexed(let index):
            if index < colorCount { return index }
            return Palette.nearest(Palette.rgb(ofIndex: index), colorCount: colorCount)
        case .rgb(let red, let green, let blue):
            return Palette.nearest((red, green, blue), colorCount: colorCount)
        }
    }
}

/// The xterm palette, for mapping `#rrggbb` onto what a terminal has.
enum Palette {
    typealias RGB = (Int, Int, Int)

    static let base16: [RGB] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255),
        (255, 255, 255),
    ]
    static let cubeLevels = [0, 95, 135, 175, 215, 255]

    static func rgb(ofIndex index: Int) -> RGB {
        switch index {
        case 0..<16:
            return base16[index]
        case 16..<232:
            let cube = index - 16
            return (cubeLevels[cube / 36], cubeLevels[(cube / 6) % 6], cubeLevels[cube % 6])
        default:
            let gray = 8 + 10 * (min(index, 255) - 232)
            return (gray, gray, gray)
        }
    }

    /// Nearest palette index by squared RGB distance. On 256-colour
    /// terminals only the fixed cube and gray ramp are searched: users
    /// redefine the first 16 colours, the rest stay put.
    static func nearest(_ color: RGB, colorCount: Int) -> Int {
        let candidates = colorCount >= 256 ? Array(16..<256) : Array(0..<min(colorCount, 16))
        var best = candidates[0]
        var bestDistance = Int.max
        for index in candidates {
            let entry = rgb(ofIndex: index)
            let distance = square(entry.0 - color.0) + square(entry.1 - color.1) + square(entry.2 - color.2)
            if distance < bestDistance {
                best = index
                bestDistance = distance
            }
        }
        return best
    }

    private static func square(_ value: Int) -> Int { value * value }
}
