import Foundation
import PinwatchProbe

/// static-ct-api's read path of the local log: tiles and issuers over the
/// same entries and tree `get-entries` serves.
extension LocalCTLog {
    /// Whether data tiles are sent gzipped; how many answers were.
    package var gzipsTiles: Bool {
        get { locked { gzipsDataTiles } }
        set { locked { gzipsDataTiles = newValue } }
    }

    package var gzippedAnswerCount: Int { locked { gzippedAnswers } }

    /// Tiles for every entry added, ahead of the published checkpoint, and
    /// a partial tile gone once its full tile exists: a reader of an older
    /// checkpoint then finds only the full tile.
    package var tilesAhead: Bool {
        get { locked { writesTilesAhead } }
        set { locked { writesTilesAhead = newValue } }
    }

    /// `tile/<L>/<N>[.p/<W>]`, `tile/data/<N>[.p/<W>]` and
    /// `issuer/<fingerprint>`: only what the published tree holds. Called
    /// with the lock held.
    func staticAsset(_ path: String) -> LocalHTTPResponse {
        if path.hasPrefix("/issuer/") {
            guard var der = issuers[String(path.dropFirst("/issuer/".count))] else { return Self.error(404, "no such issuer") }
            if currentTamper == .issuerNotItsFingerprint { der[der.count - 1] ^= 0x01 }
            return .body(status: 200, contentType: "application/pkix-cert", der)
        }
        var parts = path.dropFirst("/tile/".count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else { return Self.error(404, "not a tile path") }
        let kind = parts.removeFirst()
        var width = 256
        if parts.count >= 2, parts[parts.count - 2].hasSuffix(".p") {
            guard let partial = Int(parts.removeLast()), (1...255).contains(partial) else { return Self.error(404, "bad width") }
            width = partial
            parts[parts.count - 1].removeLast(2)
        }
        guard let index = Self.tileIndex(parts) else { return Self.error(404, "bad tile index") }
        let size = writesTilesAhead ? tree.size : published?.size ?? 0
        let partialGone = { (count: Int) in self.writesTilesAhead && width < 256 && (index + 1) * 256 <= count }
        if kind == "data" {
            guard !partialGone(size), (index + 1) * 256 <= size || (width < 256 && index * 256 + width <= size) else {
                return Self.error(404, "no such data tile")
            }
            if case .hugeEntries(let bytes) = currentTamper {
                return .flood(length: bytes, block: [UInt8](repeating: 0, count: 64 << 10))
            }
            var body: [UInt8] = []
            for entry in (index * 256)..<(index * 256 + width) {
                var leaf = tileLeaves[entry]
                if currentTamper == .entriesNotInTree { leaf[7] ^= 0x80 }
                body += leaf
            }
            guard gzipsDataTiles else { return .body(status: 200, contentType: "application/octet-stream", body) }
            gzippedAnswers += 1
            return .headed(
                status: 200, contentType: "application/octet-stream", headers: ["Content-Encoding: gzip"], LocalGzip.compress(body))
        }
        guard let level = Int(kind), (0...5).contains(level), String(level) == kind else { return Self.error(404, "bad level") }
        let span = 1 << (8 * level)
        let count = size / span
        guard !partialGone(count), (index + 1) * 256 <= count || (width < 256 && index * 256 + width <= count) else {
            return Self.error(404, "no such tile")
        }
        var body: [UInt8] = []
        for node in (index * 256)..<(index * 256 + width) { body += tree.root((node * span)..<((node + 1) * span)) }
        if currentTamper == .tileNotInTree, level == 0 { body[body.count - 1] ^= 0x01 }
        return .body(status: 200, contentType: "application/octet-stream", body)
    }

    /// `x001/x234/067` is 1234067; nil for anything else.
    static func tileIndex(_ elements: [String]) -> Int? {
        guard !elements.isEmpty, elements.count <= 5 else { return nil }
        var index = 0
        for (offset, element) in elements.enumerated() {
            let digits = offset < elements.count - 1 ? (element.hasPrefix("x") ? String(element.dropFirst()) : "") : element
            guard digits.count == 3, let value = Int(digits), digits.allSatisfy(\.isASCII) else { return nil }
            index = index * 1_000 + value
        }
        return index
    }
}
