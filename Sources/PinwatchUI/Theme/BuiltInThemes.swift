/// The themes that ship inside the binary; a test keeps them equal to the
/// files in `themes/`.
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
}
