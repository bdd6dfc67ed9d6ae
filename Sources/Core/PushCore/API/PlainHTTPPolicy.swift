extension Config {
    /// Whether an account's API token may be sent to `instance`: https always, plain http to this
    /// machine, and plain http to another machine only with `allow-http = true`, since there the
    /// token crosses the network readable by anyone on the path. gbnotifyd polls, and doctor
    /// checks, only the accounts this allows.
    public func allowsToken(to instance: GitbayInstance) -> Bool {
        instance.scheme != "http" || instance.isLoopback || allowHTTP
    }
}
