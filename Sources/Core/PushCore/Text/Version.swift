/// The product's version, printed by `--version` and sent as the HTTP User-Agent.
public enum GBNotify {
    public static let version = "0.1.0"
}
