/// An optional field kept out of line: its value where it has one, a
/// pointer's room where it is nil. For the large fields most reports leave
/// nil (a history, the next chains, an acknowledgement, a proxy), which a
/// fleet's reports, one per row, would otherwise each hold in full.
@propertyWrapper
public struct OutOfLine<Value: Hashable & Sendable>: Hashable, Sendable {
    private var box: SharedValue<Value>?

    public init(wrappedValue: Value?) {
        box = wrappedValue.map(SharedValue.init)
    }

    public var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(SharedValue.init) }
    }
}
