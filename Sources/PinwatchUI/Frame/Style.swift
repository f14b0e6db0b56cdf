/// What a cell means, never what colour it is.
///
/// Layout code asks for a meaning and the theme decides how it looks, so a
/// monochrome or colour-blind theme can keep every distinction (htop's
/// `CRT.h` colour elements work the same way).
package enum StyleRole: String, CaseIterable, Hashable, Sendable {
    case normal
    case header
    case banner
    case leaf
    case intermediate
    case root
    case ok
    case warn
    case critical
    case error
    case proxy
    case dim
    case selected
}

/// A cell's look as the layout asks for it: a role plus the flags that
/// combine with any role.
package struct Style: Hashable, Sendable {
    package var role: StyleRole
    package var bold: Bool
    /// Drawn on the selection bar: the theme's `selected` look over the role.
    package var selected: Bool

    package init(_ role: StyleRole = .normal, bold: Bool = false, selected: Bool = false) {
        self.role = role
        self.bold = bold
        self.selected = selected
    }

    package static let normal = Style()

    package func with(selected: Bool) -> Style {
        var copy = self
        copy.selected = selected
        return copy
    }

    package func with(bold: Bool) -> Style {
        var copy = self
        copy.bold = bold
        return copy
    }
}
