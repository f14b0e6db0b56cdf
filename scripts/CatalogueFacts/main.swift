import Foundation
import PinwatchCore
import PinwatchProbe

/// Prints, for each PEM file named (`catalogue/FAMILY/FILE.pem`), its
/// certificate's facts as a Swift statement storing them under its path in
/// catalogue/ (one statement each, so each type-checks on its own): what
/// scripts/catalogue-embed writes into BuiltinCatalogueData.swift, so a command reads the built-in catalogue's
/// facts instead of decoding its certificates. Computed by the probe's own
/// code (`X509Certificate.facts`); BuiltinCatalogueTests recomputes them.

/// A Swift string literal of `text`: printable ASCII as is, the rest escaped.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case " "..."~": out.unicodeScalars.append(scalar)
        default: out += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return out + "\""
}

/// One line: certificates that share a key (a root and its cross-sign, a
/// root re-issued with the same dates) then share a few lines, not a block
/// `scripts/duplicates` would report; the key and certificate digests go on
/// one line with the certificate's own, which differs. Hex in a string
/// literal: arrays of byte literals made the generated file cost gigabytes
/// to type-check.
func bytes(_ digest: [UInt8]) -> String {
    "digest(\"" + digest.map { String(format: "%02x", $0) }.joined() + "\")"
}

func seconds(_ date: Date) -> String {
    let value = date.timeIntervalSince1970
    return value == value.rounded() ? String(Int64(value)) : "\(value)"
}

var failed = false
for path in CommandLine.arguments.dropFirst() {
    let key = path.hasPrefix("catalogue/") ? String(path.dropFirst("catalogue/".count)) : path
    let certificates: [X509Certificate]
    do {
        certificates = try CertificateReader.certificates(inFile: path)
    } catch {
        FileHandle.standardError.write(Data("catalogue-facts: \(path): \(error)\n".utf8))
        failed = true
        continue
    }
    // A catalogue file holds one certificate; the loader names any other count.
    guard certificates.count == 1 else { continue }
    let facts = certificates[0].facts
    print(
        """
            facts[\(literal(key))] = CertificateFacts(
                subject: \(literal(facts.subject)),
                issuer: \(literal(facts.issuer)),
                notBefore: Date(timeIntervalSince1970: \(seconds(facts.notBefore))),
                notAfter: Date(timeIntervalSince1970: \(seconds(facts.notAfter))),
                keyDescription: \(literal(facts.keyDescription)), spkiSHA256: \(bytes(facts.spkiSHA256)), keySHA256: \(bytes(facts.keySHA256)), certSHA256: \(bytes(facts.certSHA256)),
                subjectAltNames: [\(facts.subjectAltNames.map(literal).joined(separator: ", "))],
                isCA: \(facts.isCA), isSelfSigned: \(facts.isSelfSigned),
                spkiSHA1: \(bytes(facts.spkiSHA1)))
        """)
}
exit(failed ? 1 : 0)
