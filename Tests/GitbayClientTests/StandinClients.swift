import GitbayClient
import PushCore
import TestSupport

extension Standin {
    /// This stand-in as a gitbay instance.
    var instance: GitbayInstance {
        get throws { try GitbayInstance(parsing: url) }
    }

    /// A client of this stand-in for `token`, trusting its CA when it serves HTTPS.
    func client(token: String, options: GitbayClient.Options? = nil) throws -> GitbayClient {
        try GitbayClient(instance: instance, token: APIToken(token), options: options ?? GitbayClient.Options(caFile: caFile))
    }
}
