import Foundation
import PinwatchCore

/// Digests from small integers, so a test reads "pins 1 and 2" rather than
/// base64; the importers only parse, so any 32 bytes are a pin here (the
/// end-to-end tests use pins of real certificates).
enum ImportFixtures {
    static func base64(_ seed: UInt8, count: Int = 32) -> String {
        Data(repeating: seed, count: count).base64EncodedString()
    }

    static func pin(_ seed: UInt8) -> Pin {
        Pin(kind: .spki, digest: [UInt8](repeating: seed, count: 32), text: "sha256/" + base64(seed))
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The error an import throws, or a failure naming what was returned.
    static func error(_ body: () throws(ClientSourceError) -> ImportedPins) -> ClientSourceError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// An app's Info.plist (XML) holding `body`, the keys of one top-level
    /// dictionary beside the bundle's name.
    static func infoPlist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
          <key>CFBundleName</key><string>Shop</string>
        \(body)
        </dict>
        </plist>
        """
    }
}
