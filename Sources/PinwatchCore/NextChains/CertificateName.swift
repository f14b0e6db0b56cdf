/// The short name reasons and recommendations give a CA certificate: its
/// CN, unless the CN only repeats the organisation (GlobalSign's roots are
/// all `CN=GlobalSign`), where the OU tells them apart
/// (`GlobalSign ECC Root CA - R4`).
public enum CertificateName {
    public static func short(_ subject: String) -> String {
        let parts = subject.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        func value(_ key: String) -> String? { parts.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) } }
        guard let common = value("CN") else { return subject }
        if common == value("O"), let unit = value("OU") { return unit }
        return common
    }
}
