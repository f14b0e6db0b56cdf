extension BuiltinCatalogueData {
    /// A digest as scripts/catalogue-embed writes it, in lowercase hex: one
    /// string literal a digest instead of an array of byte literals, which
    /// the type checker solved together across the whole table (several
    /// gigabytes and minutes for one file in a debug build).
    static func digest(_ hex: StaticString) -> [UInt8] {
        let text = hex.withUTF8Buffer { Array($0) }
        precondition(text.count % 2 == 0, "catalogue-embed wrote an odd-length digest")
        func nibble(_ character: UInt8) -> UInt8 {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
            default: preconditionFailure("catalogue-embed wrote a digest that is not lowercase hex")
            }
        }
        return stride(from: 0, to: text.count, by: 2).map { nibble(text[$0]) << 4 | nibble(text[$0 + 1]) }
    }
}
