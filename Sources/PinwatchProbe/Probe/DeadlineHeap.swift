/// A binary min-heap of probe deadlines, so each loop wakes exactly when the
/// earliest one falls due, whatever the number of probes in flight.
///
/// Entries are never removed early: a finished probe's entry is skipped when
/// it surfaces, which keeps every operation O(log n).
struct DeadlineHeap {
    struct Entry {
        var deadline: UInt64
        var connectionID: Int
    }

    private var entries: [Entry] = []

    var earliest: UInt64? { entries.first?.deadline }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popDue(at now: UInt64) -> Entry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
                if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}
