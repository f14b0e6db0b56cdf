import PinwatchCore

/// `/probe` under `probe_targets: [networks…]`: the target's name is
/// resolved once, here, into its numeric addresses (so `127.1`,
/// `2130706433` and `0x7f000001` all read as 127.0.0.1), and one inside
/// the networks is chosen. The probe then dials that address, with the name
/// still sent as SNI, so no second lookup can lead it elsewhere.
package enum TargetAddressCheck {
    /// Blocks for the lookup: call it off any event loop.
    package static func allowedAddress(host: String, port: Int, networks: [IPNetwork]) -> Result<String, ProbeQueryError> {
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        switch NameResolver.lookUp(host: bare, port: port) {
        case .failed(let message), .unavailable(_, let message):
            return .failure(ProbeQueryError(TerminalText.sanitize(message)))
        case .addresses(let found):
            let inside = found.map(\.ipText).first { address in networks.contains { $0.contains(address: address) } }
            guard let inside else {
                // The addresses found are not named: they would map a
                // network the exporter's callers may not see.
                return .failure(
                    ProbeQueryError(forbidden: "\(EchoedInput.quoted(host)) has no address inside probe_targets"))
            }
            return .success(inside)
        }
    }
}
