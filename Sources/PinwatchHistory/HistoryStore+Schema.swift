import Foundation

extension HistoryStore {
    package static let schemaVersion: Int32 = 8

    /// Each entry takes the schema from version N to N+1, in one transaction.
    private static let migrations: [String] = [
        """
        CREATE TABLE host(
            id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE,
            host TEXT NOT NULL, port INTEGER NOT NULL, sni TEXT NOT NULL, connect TEXT);
        CREATE TABLE name(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
        CREATE TABLE certificate(
            id INTEGER PRIMARY KEY, digest_key INTEGER NOT NULL, digest BLOB NOT NULL, spki BLOB NOT NULL,
            subject_id INTEGER NOT NULL REFERENCES name(id), issuer_id INTEGER NOT NULL REFERENCES name(id),
            not_before INTEGER NOT NULL, not_after INTEGER NOT NULL);
        CREATE INDEX certificate_by_digest ON certificate(digest_key);
        CREATE TABLE chain(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id),
            levels TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL);
        CREATE INDEX chain_by_host ON chain(host_id, first_seen);
        CREATE TABLE status_change(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id), at INTEGER NOT NULL,
            status TEXT NOT NULL, severity TEXT NOT NULL, reason TEXT NOT NULL, alerts TEXT NOT NULL);
        CREATE INDEX status_by_host ON status_change(host_id, at);
        """,
        // Every change of chain, a return to one seen before included;
        // until now only each chain's first sighting was kept.
        """
        CREATE TABLE chain_change(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id),
            chain_id INTEGER NOT NULL REFERENCES chain(id), at INTEGER NOT NULL);
        CREATE INDEX chain_change_by_host ON chain_change(host_id, at);
        INSERT INTO chain_change(host_id, chain_id, at) SELECT host_id, id, first_seen FROM chain ORDER BY first_seen, id;
        """,
        // The dashboard's acknowledgements (`AcknowledgementTable`), one per
        // host identity, with the state each acknowledged.
        """
        CREATE TABLE acknowledgement(
            identity TEXT PRIMARY KEY, until INTEGER NOT NULL, reason TEXT NOT NULL, by TEXT, at INTEGER NOT NULL,
            severity TEXT NOT NULL, headline TEXT NOT NULL);
        """,
        // Each change of chain of each probe of a host of several
        // (`addresses: all`, `key_types:`), named by the probe: a rolling
        // rotation, address by address.
        """
        CREATE TABLE probe_chain_change(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id), probe TEXT NOT NULL,
            chain_id INTEGER NOT NULL REFERENCES chain(id), at INTEGER NOT NULL);
        CREATE INDEX probe_chain_change_by_host ON probe_chain_change(host_id, at);
        """,
        // Each status row's headline, the word the dashboard showed
        // (`expiring` for an `ok` host in trouble), for the timeline's
        // words; older rows keep NULL and are told by their status.
        """
        ALTER TABLE status_change ADD COLUMN headline TEXT;
        """,
        // Clients' pin-failure reports (`ClientReportTable`), written by
        // `serve`'s endpoint through a connection of its own.
        """
        CREATE TABLE client_report(
            id INTEGER PRIMARY KEY, host TEXT NOT NULL, port INTEGER NOT NULL, at INTEGER NOT NULL,
            client TEXT NOT NULL, format TEXT NOT NULL, app TEXT, reported_at TEXT, outcome TEXT, chain TEXT NOT NULL);
        CREATE INDEX client_report_by_host ON client_report(host, port, at);
        CREATE INDEX client_report_by_time ON client_report(at);
        """,
        // Each followed Certificate Transparency log's verified tree
        // (`CTLogPositionTable`): the next run resumes there instead of
        // reading the log's history.
        """
        CREATE TABLE ct_log_position(
            log_id BLOB PRIMARY KEY, tree_size INTEGER NOT NULL, root BLOB NOT NULL, timestamp INTEGER NOT NULL, range BLOB);
        """,
        // The certificates the logs held for each host's name, judged
        // (`CTLoggedTable`): a later run, or a restarted `serve`, still
        // knows what was logged before the position it resumes from.
        """
        CREATE TABLE ct_logged(
            id INTEGER PRIMARY KEY, host TEXT NOT NULL, log TEXT NOT NULL, entry_index INTEGER NOT NULL,
            logged_at INTEGER NOT NULL, precertificate INTEGER NOT NULL, serial TEXT NOT NULL, not_before INTEGER NOT NULL,
            not_after INTEGER NOT NULL, issuer TEXT NOT NULL, issuer_spki BLOB NOT NULL, leaf_spki BLOB NOT NULL,
            survives TEXT NOT NULL, breaks TEXT NOT NULL, chain BLOB NOT NULL, UNIQUE(host, log, entry_index));
        CREATE INDEX ct_logged_by_host ON ct_logged(host, logged_at);
        """,
    ]

    func migrate(from version: Int32) throws {
        try connection.transaction {
            for step in Int(version)..<Int(Self.schemaVersion) {
                try connection.execute(Self.migrations[step])
            }
            try connection.execute("PRAGMA application_id=\(Self.applicationID)")
            try connection.execute("PRAGMA user_version=\(Self.schemaVersion)")
        }
    }
}
