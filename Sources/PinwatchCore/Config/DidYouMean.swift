/// The nearest known name to a misspelt one, for "did you mean" in a
/// configuration problem: `intervall` is `interval`, `pinset: prod-cas` is
/// `prod-ca`. Two edits at most, as shells and git suggest; a name so
/// short that two edits reach anything suggests nothing.
enum DidYouMean {
    static let maximumDistance = 2

    /// ` (did you mean interval?)`, or "" when nothing is near enough.
    static func hint(_ name: String, among candidates: some Sequence<String>) -> String {
        nearest(name, among: candidates).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Ties go to the name first in alphabetical order, so the hint is stable.
    static func nearest(_ name: String, among candidates: some Sequence<String>) -> String? {
        // A key from the file is bounded by the YAML reader, but a long one needs no hint.
        guard name.count <= 64 else { return nil }
        let wanted = Array(name.lowercased())
        var best: (distance: Int, name: String)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(wanted, Array(candidate.lowercased()))
            guard distance <= maximumDistance, distance < candidate.count else { continue }
            if best == nil || (distance, candidate) < (best!.distance, best!.name) { best = (distance, candidate) }
        }
        return best?.name
    }

    /// Levenshtein distance (insert, delete, substitute), one row at a time.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
