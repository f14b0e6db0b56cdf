import Foundation

/// The certificate of a chain that stops being valid first (DESIGN §5):
/// a pinned client fails when any level of the verified chain expires,
/// and an intermediate or a cross-signed root can end before the leaf.
public struct ChainExpiry: Hashable, Sendable {
    public var level: Int
    public var role: ChainRole
    public var subject: String
    public var notAfter: Date
    public var daysLeft: Int

    public init(level: Int, role: ChainRole, subject: String, notAfter: Date, daysLeft: Int) {
        self.level = level
        self.role = role
        self.subject = subject
        self.notAfter = notAfter
        self.daysLeft = daysLeft
    }

    /// The level with the earliest `notAfter`; the lowest level on a tie,
    /// so that a leaf ending with its issuer is still reported as the leaf.
    public static func earliest(of levels: [LevelReport]) -> ChainExpiry? {
        guard var first = levels.first else { return nil }
        for level in levels.dropFirst() where level.certificate.facts.notAfter < first.certificate.facts.notAfter {
            first = level
        }
        return ChainExpiry(
            level: first.level, role: first.role, subject: first.certificate.facts.subject,
            notAfter: first.certificate.facts.notAfter, daysLeft: first.daysLeft)
    }

    public var isLeaf: Bool { level == 0 }

    /// `the leaf certificate`, or `the intermediate CN=R11` when another
    /// level ends first: the certificate the on-call has to get replaced.
    /// The subject is certificate text, sanitised where it is shown.
    public var certificateName: String {
        isLeaf ? "the leaf certificate" : "the \(role.rawValue) \(HistoryTimeline.commonName(subject))"
    }

    /// `leaf expires in 40 days`, `intermediate CN=R11 expired 2 days ago`.
    public var shortSentence: String {
        (isLeaf ? "leaf" : "\(role.rawValue) \(HistoryTimeline.commonName(subject))") + " " + tense
    }

    /// `the leaf certificate expires in 3 days`.
    public var sentence: String {
        certificateName + " " + tense
    }

    /// `expires in 3 days`, `expired 2 days ago`: the end of both sentences.
    var tense: String {
        daysLeft < 0 ? "expired \(Self.daysText(-daysLeft)) ago" : "expires in \(Self.daysText(daysLeft))"
    }

    /// `expires 2026-12-15`, `expired 2026-12-03`: the same end with the
    /// day it counts to, which stays the same from one day to the next.
    var datedTense: String {
        (daysLeft < 0 ? "expired " : "expires ") + DateText.day(notAfter)
    }

    static func daysText(_ days: Int) -> String {
        days == 1 ? "1 day" : "\(days) days"
    }
}
