import CCurl

extension HTTPRequest {
    /// Refuses a request libcurl would send but gbnotify must not: credentials in the URL (they
    /// would travel in the clear to wherever the URL points and show up in logs) and header text
    /// that could smuggle in extra header lines. Reasons never quote the refused text.
    func validate() throws(CurlError) {
        try validateURL()
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw .invalidRequest("a header name is not a valid HTTP token")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .invalidRequest("the value of header \(name) contains a line break or NUL")
            }
        }
    }

    /// Parses with libcurl's own URL parser, so the check agrees with what libcurl will connect to.
    private func validateURL() throws(CurlError) {
        guard !url.utf8.contains(0) else { throw .invalidRequest("the URL is malformed") }
        guard let parsed = curl_url() else {
            throw .other(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "out of memory")
        }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK else {
            throw .invalidRequest("the URL is malformed")
        }
        for part in [CURLUPART_USER, CURLUPART_PASSWORD] {
            var text: UnsafeMutablePointer<CChar>?
            let found = curl_url_get(parsed, part, &text, 0) == CURLUE_OK
            curl_free(text)
            if found { throw .invalidRequest("the URL must not contain a user name or password") }
        }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
