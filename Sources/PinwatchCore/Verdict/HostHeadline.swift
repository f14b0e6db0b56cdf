/// The one word for a host's state that the header counts, the table's
/// status cell, the banner tag, the `/status:` filter and JSON's
/// `headline` all show: the cause that leads the host's reason, decided
/// by `Verdict.assess` with the severity. A status alone is not enough:
/// an `ok` host whose leaf expires in 4 days is critical, and its rows,
/// counts and filters must all say `expiring`.
public enum HostHeadline: String, Sendable, Codable, CaseIterable {
    case ok
    case leafOnly = "leaf_only"
    case expiring
    case expired
    case blocked
    /// A client release that requires Certificate Transparency refuses a
    /// leaf its pins accept: too few valid SCTs.
    case ctNoncompliant = "ct_noncompliant"
    case intercepted
    case revoked
    case error
    case chainChanged = "chain_changed"
    case pinsExpiring = "pins_expiring"
    case pinsExpired = "pins_expired"
    case intermediatePool = "intermediate_pool"
    case rootTransition = "root_transition"
    case caSwitch = "ca_switch"
    case renewalOverdue = "renewal_overdue"
    case crlStale = "crl_stale"
    case crlUnavailable = "crl_unavailable"
    case clientReports = "client_reports"
    case nextLeafLogged = "next_leaf_logged"
    case ctLogMisbehaving = "ct_log_misbehaving"
    case unpinned

    /// The header's order: ok, then the causes by what breaks clients
    /// soonest, inventory last (the first to be cut on a narrow screen).
    public static let headerOrder: [HostHeadline] = allCases
    /// Counted even at zero while the header has room: the five statuses.
    public static let alwaysCounted: Set<HostHeadline> = [.ok, .leafOnly, .blocked, .error, .unpinned]

    /// A cause that belongs to the host's chain whoever pins it (its
    /// certificates' dates, a CA change, a proxy, a failed probe), not to
    /// one client release's pins: never told as a release's finding.
    public var isHostFact: Bool {
        switch self {
        case .expiring, .expired, .intercepted, .error, .chainChanged, .renewalOverdue, .revoked, .crlUnavailable, .crlStale,
            .clientReports, .nextLeafLogged, .ctLogMisbehaving:
            return true
        case .ok, .leafOnly, .blocked, .ctNoncompliant, .pinsExpiring, .pinsExpired, .intermediatePool, .rootTransition, .caSwitch,
            .unpinned:
            return false
        }
    }

    /// `LEAF ONLY`, `CHAIN CHANGED`: the banner's tag.
    public var tag: String {
        rawValue.uppercased().replacingEach("_", with: " ")
    }

    /// The symbol the table's cell and the banner's line both put before
    /// the headline, so meaning never rests on colour alone: the
    /// severity's, or without one (the header's count of no host) the one
    /// the headline usually carries.
    public func symbol(at severity: HostSeverity?) -> String {
        switch severity {
        case .critical: return "✗"
        case .warning: return "⚠"
        case .unknown: return "!"
        case .ok, nil: break
        }
        switch self {
        case .ok: return "✓"
        case .unpinned: return "○"
        case .error: return "!"
        case .blocked, .ctNoncompliant, .expired, .intercepted, .revoked: return "✗"
        case .leafOnly, .expiring, .chainChanged, .pinsExpiring, .pinsExpired, .intermediatePool, .rootTransition, .caSwitch,
            .renewalOverdue, .crlUnavailable, .crlStale, .clientReports, .nextLeafLogged, .ctLogMisbehaving:
            return "⚠"
        }
    }
}

extension HostReport {
    /// `✗ expiring`: the table's status cell. The banner says the same
    /// headline as `✗ EXPIRING` (`headline.tag`), never another cause.
    public var headlineText: String { "\(headline.symbol(at: severity)) \(headline.rawValue)" }
}
