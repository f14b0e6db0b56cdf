import Foundation
import PinwatchCore

/// The pin matches of the chain levels a fleet's rows have in common (its
/// CAs' levels): made once for the rows one answer shows, where each row
/// would hold its own pin text and array of them.
package struct SharedPinMatches {
    private struct Key: Hashable {
        var tier: PinTier
        var digest: [UInt8]
    }

    private var made: [Key: [PinMatch]] = [:]

    package init() {}

    /// A match of `tier` by the SPKI `digest`; a CA level's is shared by
    /// every row with the same one.
    mutating func matches(_ tier: PinTier, digest: [UInt8], role: ChainRole) -> [PinMatch] {
        func make() -> [PinMatch] {
            [PinMatch(tier: tier, pin: Pin(kind: .spki, digest: digest, text: "sha256/" + Data(digest).base64EncodedString()))]
        }
        guard role != .leaf else { return make() }
        let key = Key(tier: tier, digest: digest)
        if let shared = made[key] { return shared }
        let new = make()
        made[key] = new
        return new
    }
}
