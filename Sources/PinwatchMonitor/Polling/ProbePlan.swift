import Dispatch
import Foundation
import PinwatchCore
import PinwatchProbe

/// A cycle's probes: every host's as consecutive targets, and which host
/// and variant each target is. A plain host is a plan of one probe; a
/// host of several (`addresses: all`, `key_types:`) one per address and
/// key type.
struct ProbePlan: Sendable {
    struct Owner: Sendable {
        var host: Int
        var variant: ProbeVariant
    }

    var targets: [ProbeTarget] = []
    var owners: [Owner] = []
    /// Probes per host, by host index; a host's targets are consecutive,
    /// from `firstTargets[host]` on.
    var variantCounts: [Int] = []
    var firstTargets: [Int] = []
    /// Addresses outside this cycle's window, by host index.
    var notProbed: [Int: [String]] = [:]

    /// How many probes a cycle makes, when known before any lookup: the
    /// engine's threads are sized by it.
    static func knownCount(for hosts: [HostConfig]) -> Int? {
        guard !hosts.contains(where: \.probesEveryAddress) else { return nil }
        return hosts.reduce(0) { $0 + max(1, $1.keyTypes.count) }
    }

    /// `resolved`: by host index, the addresses of each `addresses: all`
    /// host whose lookup succeeded; `window`: which of the windows of
    /// `AddressExpansion.maximumAddresses` addresses this cycle probes.
    init(hosts: [HostConfig], baseTargets: [ProbeTarget], resolved: [Int: [String]], window: Int = 0) {
        variantCounts = Array(repeating: 0, count: hosts.count)
        firstTargets = Array(repeating: 0, count: hosts.count)
        targets.reserveCapacity(baseTargets.count)
        owners.reserveCapacity(baseTargets.count)
        for (index, host) in hosts.enumerated() where baseTargets.indices.contains(index) {
            var addresses: [String]?
            if let found = resolved[index] {
                let selection = AddressExpansion.select(found, window: window)
                addresses = selection.addresses
                if !selection.notProbed.isEmpty { notProbed[index] = selection.notProbed }
            }
            firstTargets[index] = targets.count
            for variant in host.variants(resolvedAddresses: addresses) {
                var target = baseTargets[index]
                if let address = variant.address { target.connectAddress = address }
                target.keyTypeOffer = variant.keyType
                targets.append(target)
                owners.append(Owner(host: index, variant: variant))
                variantCounts[index] += 1
            }
        }
    }

    /// Looks up every `addresses: all` host on the engine's resolver pool;
    /// `completion` runs once, when all have answered or `timeout` has
    /// passed (a lookup cannot be cancelled, so a late answer is dropped).
    /// Without such a host it runs at once, on the caller's thread.
    static func resolve(
        hosts: [HostConfig], engine: ProbeEngine, timeout: TimeInterval,
        completion: @escaping @Sendable ([Int: [String]]) -> Void
    ) {
        let wanted = hosts.indices.filter { hosts[$0].probesEveryAddress }
        guard !wanted.isEmpty else { return completion([:]) }
        let gathering = ResolutionGathering(expected: wanted.count, completion: completion)
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, timeout) + 0.1) { gathering.finish() }
        for index in wanted {
            engine.resolveAddresses(host: hosts[index].host, port: hosts[index].port, timeout: timeout) { addresses in
                gathering.add(index, addresses)
            }
        }
    }
}

/// Answers of one cycle's lookups, until all are in or the deadline passes.
private final class ResolutionGathering: @unchecked Sendable {
    private let lock = NSLock()
    private var resolved: [Int: [String]] = [:]
    private var answered = 0
    private var done = false
    private let expected: Int
    private let completion: @Sendable ([Int: [String]]) -> Void

    init(expected: Int, completion: @escaping @Sendable ([Int: [String]]) -> Void) {
        self.expected = expected
        self.completion = completion
    }

    func add(_ index: Int, _ addresses: [String]?) {
        lock.lock()
        guard !done else { return lock.unlock() }
        if let addresses { resolved[index] = addresses }
        answered += 1
        let complete = answered >= expected
        lock.unlock()
        if complete { finish() }
    }

    func finish() {
        lock.lock()
        guard !done else { return lock.unlock() }
        done = true
        let answers = resolved
        lock.unlock()
        completion(answers)
    }
}

/// Each host's probe results until the last of its variants is in.
final class VariantResults: @unchecked Sendable {
    private let lock = NSLock()
    private let plan: ProbePlan
    private var slots: [[ProbeResult?]]
    private var remaining: [Int]

    init(plan: ProbePlan) {
        self.plan = plan
        slots = plan.variantCounts.map { Array(repeating: nil, count: $0) }
        remaining = plan.variantCounts
    }

    /// The host's variants and results once this was its last one.
    func add(target index: Int, _ result: ProbeResult) -> (host: Int, outcomes: [(ProbeVariant, ProbeResult)])? {
        guard plan.owners.indices.contains(index) else { return nil }
        let owner = plan.owners[index]
        lock.lock()
        defer { lock.unlock() }
        let position = index - plan.firstTargets[owner.host]
        slots[owner.host][position] = result
        remaining[owner.host] -= 1
        guard remaining[owner.host] == 0 else { return nil }
        let first = plan.firstTargets[owner.host]
        let variants = plan.owners[first..<first + plan.variantCounts[owner.host]].map(\.variant)
        let results = slots[owner.host].map {
            $0 ?? ProbeResult.failed(ProbeFailure(kind: .timeout, message: "probe did not finish"), elapsed: 0)
        }
        return (owner.host, Array(zip(variants, results)))
    }
}
