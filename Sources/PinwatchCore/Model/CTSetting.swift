import Foundation

/// `ct:`: where Certificate Transparency is read from. Nil in `Config.ct`
/// (off) unless the block is written, so that nothing new goes on the
/// network by surprise.
package struct CTSetting: Hashable, Sendable {
    /// `logs:`: a log list in Chrome's v3 JSON format, its path resolved
    /// against the configuration file's folder, or `builtInLogList` for
    /// the copy of the public list built in (`CTLogList.load(configured:)`
    /// reads either).
    package var logList: String?

    /// `logs: built-in`. A path is made absolute against the configuration
    /// file's folder, so no path a configuration names reads back as this.
    package static let builtInLogList = "built-in"
    /// `search:`: the base URL of a hosted search with Cert Spotter's v1 API.
    package var search: String?

    package init(logList: String? = nil, search: String? = nil) {
        self.logList = logList
        self.search = search
    }

    /// Why `text` cannot be `search:`, or nil: an http(s) URL with a host
    /// and neither query nor fragment (the API's paths go beneath it).
    package static func searchProblem(_ text: String) -> String? {
        let isSpaceOrControl: (Unicode.Scalar) -> Bool = {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control
        }
        guard !text.unicodeScalars.contains(where: isSpaceOrControl), let url = URLComponents(string: text),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
            url.query == nil, url.fragment == nil
        else {
            return "\(EchoedInput.quoted(text)) is not an http(s) base URL (e.g. https://api.certspotter.com)"
        }
        return nil
    }
}
