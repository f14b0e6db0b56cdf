import Foundation

/// `report_uri:`: where `serve` accepts the pin-failure reports clients
/// post, and the token a post must carry. Off unless configured: the
/// endpoint writes to the history store on behalf of whoever can reach it.
public struct ReportURISetting: Hashable, Sendable {
    /// Where the token is read from when `serve` starts.
    public enum TokenSource: Hashable, Sendable {
        /// A file (resolved against the configuration's folder) holding the token.
        case file(String)
        /// An environment variable holding the token.
        case environment(String)
    }

    /// The path reports are posted to (`/report`).
    public var path: String
    public var token: TokenSource

    public init(path: String, token: TokenSource) {
        self.path = path
        self.token = token
    }

    /// The clients cannot add headers to their reports, only choose the
    /// URL: the token rides in the query (`?token=`), so it must be long
    /// enough not to be guessed and plain enough to write in a URL.
    public static let minimumTokenCharacters = 16
    public static let maximumTokenCharacters = 256
    /// Paths the exporter already answers.
    static let reservedPaths: Set<String> = ["/", "/metrics", "/probe", "/-/healthy", "/-/ready"]

    public static func pathProblem(_ path: String) -> String? {
        guard path.hasPrefix("/"), path.count <= 128,
            path.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789/-._~".unicodeScalars.contains($0)) })
        else {
            return "\(EchoedInput.quoted(path)) is not a path: write one such as /report (letters, digits, / - . _ ~; at most 128)"
        }
        if reservedPaths.contains(path) || path.hasPrefix("/-/") {
            return "\(EchoedInput.quoted(path)) is a path the exporter already answers: choose another, such as /report"
        }
        return nil
    }

    /// The token as read from its file or variable (one trailing newline
    /// dropped), or why it cannot be used.
    public static func token(from text: String, source: String) -> Result<String, ReportURIProblem> {
        var token = text
        if token.hasSuffix("\r\n") {
            token.removeLast(1)
        } else if token.hasSuffix("\n") {
            token.removeLast()
        }
        guard (minimumTokenCharacters...maximumTokenCharacters).contains(token.count),
            token.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789-._~".unicodeScalars.contains($0)) })
        else {
            return .failure(
                ReportURIProblem(
                    "report_uri token (\(source)) must be \(minimumTokenCharacters) to \(maximumTokenCharacters) letters, digits or - . _ ~ "
                        + "(e.g. the output of `openssl rand -hex 24`)"))
        }
        return .success(token)
    }

    /// Compares every byte whatever the first difference, so the answer's
    /// timing does not tell a guesser how much of a token was right.
    public static func tokenMatches(_ given: String, _ expected: String) -> Bool {
        let left = Array(given.utf8)
        let right = Array(expected.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<right.count {
            difference |= (index < left.count ? left[index] : 0) ^ right[index]
        }
        return difference == 0
    }
}

public struct ReportURIProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
