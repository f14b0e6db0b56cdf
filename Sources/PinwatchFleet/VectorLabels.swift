/// A sample's labels: names and values side by side, each name once (a
/// repeated name keeps its last value, as a table would). A name is found
/// by going through the names, a sample's ten or so each compared faster
/// than a name is hashed; an answer's samples of one family share one
/// array of names. A table per sample, hashed as it was built and again
/// for every name a row reads, cost more (Benchmarks/README.md, "The
/// snapshot's own CPU").
package struct VectorLabels: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (key: String, value: String)

    package private(set) var names: [String]
    package private(set) var values: [String]

    package init() {
        names = []
        values = []
    }

    /// `names` without a repeated one, `values` as many.
    init(names: [String], values: [String]) {
        self.names = names
        self.values = values
    }

    package init(_ labels: [String: String]) {
        let sorted = labels.sorted { $0.key < $1.key }
        self.init(names: sorted.map(\.key), values: sorted.map(\.value))
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init()
        for (name, value) in elements { self[name] = value }
    }

    package subscript(name: String) -> String? {
        get {
            for index in names.indices where names[index] == name { return values[index] }
            return nil
        }
        set {
            let at = names.firstIndex(of: name)
            switch (at, newValue) {
            case (let at?, let value?): values[at] = value
            case (let at?, nil):
                names.remove(at: at)
                values.remove(at: at)
            case (nil, let value?):
                names.append(name)
                values.append(value)
            case (nil, nil): break
            }
        }
    }

    package var count: Int { names.count }
    package var isEmpty: Bool { names.isEmpty }

    package var dictionary: [String: String] { Dictionary(zip(names, values)) { $1 } }

    /// The labels `isIncluded` keeps, as a table.
    package func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> [String: String] {
        var kept: [String: String] = [:]
        for index in names.indices where try isIncluded((names[index], values[index])) { kept[names[index]] = values[index] }
        return kept
    }

    package func makeIterator() -> Iterator { Iterator(labels: self) }

    package struct Iterator: IteratorProtocol {
        fileprivate let labels: VectorLabels
        fileprivate var index = 0

        package mutating func next() -> Element? {
            guard index < labels.names.count else { return nil }
            defer { index += 1 }
            return (labels.names[index], labels.values[index])
        }
    }

    /// Equal labels in any order are equal.
    package static func == (one: VectorLabels, other: VectorLabels) -> Bool {
        (one.names == other.names && one.values == other.values) || one.dictionary == other.dictionary
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(dictionary)
    }
}
