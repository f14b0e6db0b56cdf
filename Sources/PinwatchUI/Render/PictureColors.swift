import Foundation

/// The colours a picture (SVG, HTML) draws a cell in: what a terminal
/// would show, kept readable on paper and screens without the terminal's
/// own tuning.
///
/// Two steps, in this order: bold brightens the eight base colours to
/// their bright half, as most terminals draw bold text; then a foreground
/// that would stand below WCAG's 4.5:1 against its background is moved
/// toward white or black (whichever reads better there) until it does not.
enum PictureColors {
    typealias RGB = (red: Int, green: Int, blue: Int)

    /// A dark terminal's default colours, which the themes assume.
    static let defaultForeground: RGB = (0xd0, 0xd0, 0xd0)
    static let defaultBackground: RGB = (0x1c, 0x1c, 0x1c)
    /// WCAG 2's minimum for body text (success criterion 1.4.3).
    static let minimumContrast = 4.5

    /// The cell's foreground and, when it is not the picture's own, its background.
    static func pair(for look: RoleAppearance) -> (foreground: RGB, background: RGB?) {
        var foreground = rgb(look.foreground, bold: look.bold)
        var background = rgb(look.background, bold: false)
        if look.reverse {
            (foreground, background) = (background ?? defaultBackground, foreground ?? defaultForeground)
        }
        let drawnBackground = background ?? defaultBackground
        return (readable(foreground ?? defaultForeground, on: drawnBackground), background)
    }

    /// A theme colour as RGB; nil for the terminal's default.
    static func rgb(_ color: TerminalColor, bold: Bool) -> RGB? {
        switch color {
        case .terminalDefault: return nil
        case .indexed(let index):
            let shown = bold && (0..<8).contains(index) ? index + 8 : index
            let entry = Palette.rgb(ofIndex: shown)
            return (entry.0, entry.1, entry.2)
        case .rgb(let red, let green, let blue):
            return (max(0, min(255, red)), max(0, min(255, green)), max(0, min(255, blue)))
        }
    }

    /// `foreground`, or the nearest mix of it with white or black that
    /// reaches `minimumContrast` on `background`. One of white and black
    /// always reaches it (each end of the scale is at least 4.58:1 from
    /// the other side of mid-grey), so the loop always ends within its steps.
    static func readable(_ foreground: RGB, on background: RGB) -> RGB {
        guard contrast(foreground, background) < minimumContrast else { return foreground }
        let white: RGB = (255, 255, 255)
        let black: RGB = (0, 0, 0)
        let target = contrast(white, background) >= contrast(black, background) ? white : black
        let steps = 32
        for step in 1...steps {
            let mixed = mix(foreground, target, fraction: Double(step) / Double(steps))
            if contrast(mixed, background) >= minimumContrast { return mixed }
        }
        return target
    }

    /// WCAG 2's contrast ratio, from 1 (same) to 21 (black on white).
    static func contrast(_ first: RGB, _ second: RGB) -> Double {
        let (lighter, darker) = (max(luminance(first), luminance(second)), min(luminance(first), luminance(second)))
        return (lighter + 0.05) / (darker + 0.05)
    }

    /// WCAG 2's relative luminance of an sRGB colour.
    static func luminance(_ color: RGB) -> Double {
        func linear(_ component: Int) -> Double {
            let value = Double(component) / 255
            return value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue)
    }

    static func hex(_ color: RGB) -> String {
        "#"
            + [color.red, color.green, color.blue].map { component in
                let text = String(component, radix: 16)
                return text.count == 1 ? "0" + text : text
            }.joined()
    }

    private static func mix(_ from: RGB, _ to: RGB, fraction: Double) -> RGB {
        func blend(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * fraction).rounded()) }
        return (blend(from.red, to.red), blend(from.green, to.green), blend(from.blue, to.blue))
    }
}
