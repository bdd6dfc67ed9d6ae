import PushCore

/// `GitbayInstance(parsing:allowInsecureHTTP:)`: normalising is idempotent (a normalised URL
/// re-parses to the same instance), the result holds nothing a token should not be sent to, and
/// the http switch only ever decides whether plain http to another machine is allowed.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: input, as: UTF8.self)
    let lax: GitbayInstance
    do {
        lax = try GitbayInstance(parsing: text, allowInsecureHTTP: true)
    } catch {
        invariant(isOneLine(error.description), "the error is not one line: \(error)")
        return
    }

    do {
        let strict = try GitbayInstance(parsing: text)
        invariant(strict == lax, "allowInsecureHTTP changed the parse of \(text.debugDescription)")
    } catch .insecureHTTP(let url) {
        invariant(lax.scheme == "http" && !lax.isLoopback, "\(lax.url) refused as insecure")
        invariant(url == lax.url, "insecureHTTP names \(url), not \(lax.url)")
    } catch {
        fatalError("invariant broken: \(text.debugDescription) parses only with plain http allowed, but fails with \(error)")
    }

    let url = lax.url
    invariant(url == "\(lax.scheme)://\(lax.displayName)\(lax.path)", "url and its parts disagree")
    invariant(lax.scheme == "https" || lax.scheme == "http", "scheme \(lax.scheme)")
    invariant(lax.port.map { (1...65535).contains($0) } ?? true, "port \(lax.port ?? 0)")
    invariant(!url.hasSuffix("/"), "\(url) keeps a trailing slash")
    invariant(
        url.utf8.allSatisfy { (0x21...0x7E).contains($0) && !"@?#%".utf8.contains($0) },
        "\(url.debugDescription) holds a character a base URL must not"
    )
    invariant(lax.host == lax.host.lowercased(), "host \(lax.host) is not lowercase")
    let again = try? GitbayInstance(parsing: url, allowInsecureHTTP: true)
    invariant(again == lax, "\(url) does not re-parse to itself (from \(text.debugDescription))")
}
