#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who runs pinwatch, as `last` and `who` name them: `USER`, then
/// `LOGNAME`, then the password entry of the effective user, so that a
/// service account, `sudo -u` or a cron-started shell without `USER`
/// still signs what it acknowledges.
package enum LoginName {
    /// `passwordEntry` is asked only when neither variable names anyone.
    package static func resolve(environment: [String: String], passwordEntry: () -> String? = effectiveUserEntry) -> String? {
        for variable in ["USER", "LOGNAME"] {
            if let name = environment[variable], !name.isEmpty { return name }
        }
        return passwordEntry().flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The effective user's name from the password database (NSS: files,
    /// LDAP, sssd), nil when the uid has no entry (a container's bare uid).
    package static func effectiveUserEntry() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &found)
        guard status == 0, found != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
