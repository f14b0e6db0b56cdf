import Yams

/// YAML text to nodes, for the configuration and the themes. Tags are never
/// read (every scalar is interpreted by its reader), so Yams's defaults are
/// work for nothing at every start: the default resolver compiles seven ICU
/// regular expressions, the default constructor builds three dictionaries,
/// and the default encoding reads the whole environment to look for
/// YAMS_DEFAULT_ENCODING.
public enum YAMLComposer {
    public static func compose(_ yaml: String) throws -> Node? {
        try Yams.compose(yaml: yaml, .basic, Constructor([:], [:], [:]), .utf8)
    }
}
