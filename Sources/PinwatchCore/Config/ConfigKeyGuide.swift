/// One line per configuration key, for the manual page: an installed
/// system has no docs/ folder, so `man pinwatch` must list every key the
/// parser accepts. `ConfigKeyGuideTests` fails when a key of the parser's
/// known-keys lists (the ones "did you mean" suggests from) has no line
/// here, or a line names a key the parser refuses.
package enum ConfigKeyGuide {
    package struct Key: Equatable, Sendable {
        package let name: String
        package let line: String
    }

    package struct Section: Sendable {
        /// Where the keys go, as a user writes it (`hosts:` entries).
        package let title: String
        package let keys: [Key]
    }

    package static let sections: [Section] = [topLevel, hosts, pins, clients, catalogue, hooks]

    private static func key(_ name: String, _ line: String) -> Key { Key(name: name, line: line) }

    package static let topLevel = Section(
        title: "top-level keys",
        keys: [
            key("interval", "how often every host is probed (default 60s; 1s to 1 week)"),
            key("timeout", "per host: DNS, connect, proxy and handshake (default 5s; 10ms to interval)"),
            key("concurrency", "probes in flight at once (default 32; 1 to 10000)"),
            key("warn_days", "days before expiry that warn, expiring (default 21)"),
            key("critical_days", "days before expiry that are critical, critical_expiry (default 7; at most warn_days)"),
            key("renew_share", "share of its lifetime past which a leaf still served is renewal_overdue (default 0.67; off)"),
            key("revocation", "on (default) or off: the chain's CRLs fetched over HTTP and a stapled OCSP response read; per host too"),
            key("theme", "default, mono, high-contrast, colorblind, or a theme file"),
            key("trust", "system (OpenSSL's default store) or a PEM bundle; per host too"),
            key("proxy", "auto (the environment, as curl reads it), off, or a proxy URL"),
            key("listen", "where pinwatch serve answers (default 127.0.0.1:9715)"),
            key("probe_targets", "what serve's /probe may dial: configured (default), any, or a list of networks"),
            key("report_uri", "serve accepts clients' pin-failure reports: {path: /report, token_file: FILE} or token_env: NAME"),
            key("shard", "I/N: watch only shard I of N of the hosts; --shard overrides"),
            key("vantage", "the network this instance watches from: a vantage label on every host series"),
            key("deprecated_series", "true: serve and snapshot also export the metric families deprecated in this release (default false)"),
            key("prometheus", "a Prometheus server URL: watch shows the fleet's verdicts from it instead of probing"),
            key("hooks", "commands run on every severity transition, each given one JSON object on stdin"),
            key("state", "the history store's file, or off (default $XDG_STATE_HOME/pinwatch/state.sqlite)"),
            key("history_days", "how long history is kept (default 400; 1 to 3650 days)"),
            key("pinsets", "named pin sets hosts share: NAME: {ca: [...], leaf: [...], auto: [...], provider: NAME}"),
            key("hosts", "the hosts to watch (below); an empty list is valid"),
            key("clients", "app releases whose pins are read from their own files (below)"),
            key("catalogue", "your own CA families (roots and issuing pool) for next-chain judgement (below)"),
            key("include", "files (globs, relative to this file) whose hosts: and pinsets: are added"),
            key("file_sd", "Prometheus file_sd target lists (JSON or YAML) whose targets become hosts"),
            key("addresses", "first (default) or all: probe every address the name resolves to; per host too"),
            key("key_types", "[ecdsa, rsa]: one handshake per key type, each judged; per host too"),
            key("utc", "true: every time the dashboard and snapshot show is in UTC (--utc)"),
            key(
                "ct",
                "{logs: FILE, search: URL}: Certificate Transparency logs followed for the watched names (next_leaf_logged); off unless set"
            ),
        ])

    /// The entry parser's own table: a host key and its line are one row.
    package static let hosts = Section(
        title: "hosts: entries", keys: HostKey.all.map { Key(name: $0.name, line: $0.line) })

    package static let pins = Section(
        title: "pins: and pinsets: tiers",
        keys: [
            key("ca", "pins of a CA key: the host survives its next leaf renewal"),
            key("leaf", "pins of the leaf key: break at the next leaf renewal"),
            key("auto", "pins whose tier the live chain decides (what import writes)"),
            key("provider", "in a pin set: the catalogue provider its hosts inherit"),
            key("labels", "in a pin set: owner key/values its hosts inherit"),
            key("runbook", "in a pin set: the runbook URL its hosts inherit"),
        ])

    package static let clients = Section(
        title: "clients: entries (exactly one source key each)",
        keys: [
            key("name", "required, unique: the release as people say it (android 5.2)"),
            key("nsc", "source: an Android network_security_config.xml"),
            key("trustkit", "source: a TrustKit Info.plist, its JSON export, or Swift/Objective-C source"),
            key("ats", "source: an Info.plist (XML or binary) with NSAppTransportSecurity NSPinnedDomains"),
            key("rn_ssl_manager", "source: react-native-ssl-manager's ssl_config.json (sha256Keys, domains)"),
            key("rn_pinning", "source: JavaScript or TypeScript with react-native-ssl-public-key-pinning's initializeSslPinning({...})"),
            key("flutter", "source: Dart with http_certificate_pinning's allowedSHAFingerprints (certificate fingerprints)"),
            key("okhttp", "source: Kotlin or Java source with CertificatePinner.Builder().add calls"),
            key("curl", "source: a script or file with --pinnedpubkey"),
            key("hpkp", "source: an HTTP response head with a Public-Key-Pins header"),
            key(
                "dynamic_list",
                "source: a signed pin list, {url: https://... | file: PATH, public_key: BASE64}; a saved challenge-signed list adds signature: and challenge:"
            ),
            key("public_key", "of a dynamic_list: the app's uncompressed P-256 point, base64"),
            key("host", "for curl, hpkp and flutter sources that name no host"),
            key("skip", "host names the source pins that are not to be probed"),
            key("trust_store", "the release's own roots (a PEM bundle, or a folder of certificates as Android ships them)"),
            key("optional", "true: a source that cannot be read is left out with a warning"),
            key(
                "ct_required",
                "true: the release targets Android API 37+, which refuses a leaf without compliant SCTs (needs ct: logs:)"),
        ])

    package static let catalogue = Section(
        title: "catalogue: entries",
        keys: [
            key("name", "required: the family's name, unique across the catalogue"),
            key("roots", "required: PEM or DER files of its roots"),
            key("intermediates", "files of the intermediates it issues from, each signed by one of roots"),
        ])

    package static let hooks = Section(
        title: "hooks: entries (an argv list, or a mapping)",
        keys: [
            key("command", "the argv list, run without a shell"),
            key("timeout", "killed past it, with its process group (default 10s)"),
            key("env", "names of variables passed beyond the minimum (PATH, HOME, LANG, LC_*, TZ, PINWATCH_*)"),
        ])
}
