/// `vantage:`: the network an instance watches from (`eu-office`,
/// `us-east.aws`). It becomes a label on every series `serve` exports and
/// a column of the fleet dashboard, so it is kept to what a label value,
/// a PromQL selector and a terminal cell take without quoting surprises.
public enum Vantage {
    public static let maximumLength = 64

    /// Why `name` cannot be a vantage, or nil: 1 to 64 ASCII letters,
    /// digits, `-`, `_` and `.`.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "give a name for this vantage (letters, digits, '-', '_', '.')" }
        if name.utf8.count > maximumLength {
            return "\(EchoedInput.quoted(name)) is longer than \(maximumLength) characters"
        }
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
        return allowed ? nil : "\(EchoedInput.quoted(name)) is not a vantage name (letters, digits, '-', '_', '.')"
    }
}
