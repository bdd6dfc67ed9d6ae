import Glibc

/// Where the system's CAs are read from when no `ca-file` is set: OpenSSL's hashed directory,
/// from which a handshake loads only the CA the server's chain leads to. libcurl's bundle
/// instead is parsed whole into the session's store and kept for the process's life: Debian's
/// 140-odd CAs are about 1.3 MiB of private memory. Debian's `update-ca-certificates` keeps the
/// directory and the bundle in step, so both trust the same CAs.
public enum SystemTrust {
    /// `SSL_CERT_DIR` (OpenSSL's own override), else /etc/ssl/certs; nil when it holds no hash
    /// links (not prepared by `c_rehash` or `openssl rehash`), and libcurl's bundle serves then.
    public static let directory: String? = directory(environment: getenv("SSL_CERT_DIR").map { String(cString: $0) })

    static func directory(environment value: String?) -> String? {
        let directory = value.flatMap { $0.hasPrefix("/") && !$0.contains(":") ? $0 : nil } ?? "/etc/ssl/certs"
        return hasHashLinks(directory) ? directory : nil
    }

    private static func hasHashLinks(_ directory: String) -> Bool {
        guard let stream = opendir(directory) else { return false }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if isHashName(name) { return true }
        }
        return false
    }

    /// `5ad8a5d6.0`: a subject hash (eight hex digits), a dot, a number.
    static func isHashName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit)
            && !parts[1].isEmpty && parts[1].allSatisfy(\.isNumber)
    }
}
