/// The themes that ship inside the binary, so every name works from any
/// directory; a test keeps them equal to the files in `themes/`, which stay
/// as examples to copy and override.
enum BuiltInThemes {
    /// `themes/default.yaml`, compiled in so pinwatch has colours wherever it runs.
    static let defaultYAML = """
        # pinwatch default theme. Chain roles are fixed by DESIGN §2:
        # leaf green, intermediate blue, root red.
        name: default
        roles:
          normal:       { fg: default }
          header:       { fg: white, bg: blue, attributes: [bold] }
          banner:       { fg: black, bg: yellow, attributes: [bold] }
          leaf:         { fg: green }
          intermediate: { fg: blue, attributes: [bold] }
          root:         { fg: red }
          ok:           { fg: green }
          warn:         { fg: yellow, attributes: [bold] }
          critical:     { fg: red, attributes: [bold] }
          error:        { fg: magenta, attributes: [bold] }
          proxy:        { fg: cyan }
          dim:          { fg: bright-black }
          selected:     { attributes: [reverse] }
        """

    /// `themes/mono.yaml`, compiled in because `NO_COLOR` must work without any file.
    static let monoYAML = """
        # No colours at all: meaning by symbols (✓ ✗ ·) and attributes only.
        # Selected automatically when NO_COLOR is set or the terminal has no colours.
        name: mono
        roles:
          header:       { attributes: [bold, reverse] }
          banner:       { attributes: [bold, reverse] }
          leaf:         { }
          intermediate: { }
          root:         { attributes: [underline] }
          ok:           { }
          warn:         { attributes: [bold] }
          critical:     { attributes: [bold, underline] }
          error:        { attributes: [bold] }
          proxy:        { attributes: [underline] }
          dim:          { }
          selected:     { attributes: [reverse] }
        """

    /// `themes/high-contrast.yaml`.
    static let highContrastYAML = """
        # Bright colours on black, bold everywhere it carries meaning.
        name: high-contrast
        roles:
          normal:       { fg: bright-white, bg: black }
          header:       { fg: black, bg: bright-white, attributes: [bold] }
          banner:       { fg: black, bg: bright-yellow, attributes: [bold] }
          leaf:         { fg: bright-green, bg: black, attributes: [bold] }
          intermediate: { fg: bright-cyan, bg: black, attributes: [bold] }
          root:         { fg: bright-red, bg: black, attributes: [bold] }
          ok:           { fg: bright-green, bg: black, attributes: [bold] }
          warn:         { fg: bright-yellow, bg: black, attributes: [bold] }
          critical:     { fg: bright-red, bg: black, attributes: [bold, underline] }
          error:        { fg: bright-magenta, bg: black, attributes: [bold] }
          proxy:        { fg: bright-cyan, bg: black, attributes: [underline] }
          dim:          { fg: white, bg: black }
          selected:     { fg: black, bg: bright-yellow, attributes: [bold] }
        """

    /// `themes/colorblind.yaml`.
    static let colorblindYAML = """
        # Distinguishable without red/green (Okabe–Ito palette): the leaf is sky
        # blue, the intermediate yellow, the root vermilion-orange; good is blue,
        # bad is orange, and the symbols still carry the meaning.
        name: colorblind
        roles:
          header:       { fg: white, bg: "#0072b2", attributes: [bold] }
          banner:       { fg: black, bg: "#e69f00", attributes: [bold] }
          leaf:         { fg: "#56b4e9" }
          intermediate: { fg: "#f0e442" }
          root:         { fg: "#d55e00", attributes: [bold] }
          ok:           { fg: "#0072b2", attributes: [bold] }
          warn:         { fg: "#e69f00", attributes: [bold] }
          critical:     { fg: "#d55e00", attributes: [bold, underline] }
          error:        { fg: "#cc79a7", attributes: [bold] }
          proxy:        { fg: "#009e73" }
          dim:          { fg: 244 }
          selected:     { attributes: [reverse] }
        """

    /// Every built-in theme by name, in the order `t` cycles through them.
    static let all: [(name: String, yaml: String)] = [
        ("default", defaultYAML), ("mono", monoYAML), ("high-contrast", highContrastYAML), ("colorblind", colorblindYAML),
    ]

    /// Other spellings people write (the example config says colour-blind).
    static let aliases: [String: String] = ["colour-blind": "colorblind", "color-blind": "colorblind", "highcontrast": "high-contrast"]
}
