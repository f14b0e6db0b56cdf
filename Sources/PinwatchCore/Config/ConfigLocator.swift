/// Finds the configuration file in DESIGN §4's order.
public enum ConfigLocator {
    /// The first of `--config`, `./pinwatch.yaml`,
    /// `$XDG_CONFIG_HOME/pinwatch/config.yaml` (default `~/.config/...`)
    /// that applies; nil when none exists. Whether a candidate exists is
    /// asked of `isFile`, because Core does not look at the disk
    /// (PinwatchMonitor supplies the real check).
    ///
    /// An explicit path is returned even when it does not exist, so the
    /// loader can say it is unreadable instead of silently falling back.
    public static func locate(
        explicit: String?, currentDirectory: String, environment: [String: String], isFile: (String) -> Bool
    ) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        var candidates = [join(currentDirectory, "pinwatch.yaml")]
        // The XDG spec ignores relative values of XDG_CONFIG_HOME.
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            candidates.append(join(xdg, "pinwatch/config.yaml"))
        } else if let home = environment["HOME"], !home.isEmpty {
            candidates.append(join(home, ".config/pinwatch/config.yaml"))
        }
        return candidates.first(where: isFile)
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
