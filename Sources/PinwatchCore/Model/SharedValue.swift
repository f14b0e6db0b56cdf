/// A value held once and shared by every copy of what holds it: a large
/// field that a fleet's reports, one per row, would otherwise each hold in
/// full (`OutOfLine`, `ChainCertificate`'s facts).
final class SharedValue<Value: Hashable & Sendable>: Hashable, Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (one: SharedValue, other: SharedValue) -> Bool {
        one === other || one.value == other.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
