/// The short name reasons and recommendations give a CA certificate: its
/// CN, unless the CN only repeats the organisation (GlobalSign's roots are
/// all `CN=GlobalSign`), where the OU tells them apart
/// (`GlobalSign ECC Root CA - R4`).
public enum CertificateName {
    /// One pass over the subject's parts, each trimmed in place: every
    /// host's chain levels are named in every next-chain scenario, each cycle.
    public static func short(_ subject: String) -> String {
        var common: Substring?
        var organisation: Substring?
        var unit: Substring?
        for part in subject.split(separator: ",") {
            let field = trimmed(part)
            if common == nil, field.hasPrefix("CN=") {
                common = field.dropFirst(3)
            } else if organisation == nil, field.hasPrefix("O=") {
                organisation = field.dropFirst(2)
            } else if unit == nil, field.hasPrefix("OU=") {
                unit = field.dropFirst(3)
            }
        }
        guard let common else { return subject }
        if common == organisation, let unit { return String(unit) }
        return String(common)
    }

    /// `part` without the tabs and space separators (Unicode's Zs) at
    /// either end: what Foundation's `CharacterSet.whitespaces` trims.
    private static func trimmed(_ part: Substring) -> Substring {
        let scalars = part.unicodeScalars
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return part[part.endIndex...]
        }
        return Substring(scalars[first...last])
    }
}
