/// A certificate's or a key's DER bytes as a dictionary key: the caches of
/// an event loop hold what is a pure function of these bytes, so equal
/// keys are equal inputs.
struct DERBytes: Hashable {
    let bytes: [UInt8]

    /// As one run of bytes: `[UInt8]`'s own hashing feeds the hasher
    /// one element at a time.
    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
