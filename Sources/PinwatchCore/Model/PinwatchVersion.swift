/// The version every pinwatch executable reports.
public enum PinwatchVersion {
    public static let current = "0.2.0"
}
