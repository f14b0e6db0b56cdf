/// An optional field kept out of line: its value where it has one, a
/// pointer's room where it is nil. For the large fields most reports leave
/// nil (a history, the next chains, an acknowledgement, a proxy), which a
/// fleet's reports, one per row, would otherwise each hold in full.
@propertyWrapper
public struct OutOfLine<Value: Hashable & Sendable>: Hashable, Sendable {
    private final class Box: Sendable {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private var box: Box?

    public init(wrappedValue: Value?) {
        box = wrappedValue.map(Box.init)
    }

    public var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }

    public static func == (one: Self, other: Self) -> Bool {
        one.wrappedValue == other.wrappedValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}
