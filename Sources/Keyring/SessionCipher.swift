import CCrypto

/// The symmetric half of a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session: the AES-128 key that
/// HKDF-SHA256 (no salt, empty info) draws from the Diffie-Hellman secret, and AES-128-CBC with
/// a fresh random IV per secret (sent as the secret's `parameters`) and PKCS#7 padding.
/// The key is wiped when the cipher goes.
final class SessionCipher {
    static let keyBytes = 16
    static let ivBytes = 16

    private var key: [UInt8]

    /// Derives the key from the shared secret, then wipes the secret.
    init(sharedSecret: consuming [UInt8]) throws(KeyringError) {
        defer { Self.wipe(&sharedSecret) }
        key = try Self.hkdfSHA256(sharedSecret, count: Self.keyBytes)
    }

    /// For the tests' fixed vectors.
    init(key: [UInt8]) {
        self.key = key
    }

    deinit {
        Self.wipe(&key)
    }

    /// The padded, encrypted `plaintext` and the random IV it was encrypted with.
    func encrypt(_ plaintext: [UInt8]) throws(KeyringError) -> (iv: [UInt8], ciphertext: [UInt8]) {
        var iv = [UInt8](repeating: 0, count: Self.ivBytes)
        guard RAND_bytes(&iv, Int32(iv.count)) == 1 else { throw KeyringError.openSSLFailed("draw a random IV") }
        var padded = PKCS7.pad(plaintext)
        defer { Self.wipe(&padded) }
        return (iv, try crypt(padded, iv: iv, encrypting: true))
    }

    /// Throws when the IV or the length is wrong, or the padding is bad (the wrong key, or a
    /// damaged secret): never returns garbage as a token.
    func decrypt(_ ciphertext: [UInt8], iv: [UInt8]) throws(KeyringError) -> [UInt8] {
        guard iv.count == Self.ivBytes else {
            throw KeyringError.failed("the Secret Service sent a secret with an IV of \(iv.count) bytes, not 16")
        }
        guard !ciphertext.isEmpty, ciphertext.count % PKCS7.blockSize == 0 else {
            throw KeyringError.failed("the Secret Service sent an encrypted secret of \(ciphertext.count) bytes, not whole AES blocks")
        }
        var padded = try crypt(ciphertext, iv: iv, encrypting: false)
        defer { Self.wipe(&padded) }
        do {
            return try PKCS7.unpad(padded)
        } catch {
            throw KeyringError.failed("a secret from the Secret Service did not decrypt (bad padding)")
        }
    }

    /// Raw AES-128-CBC over whole blocks; the padding is PKCS7's business.
    func crypt(_ input: [UInt8], iv: [UInt8], encrypting: Bool) throws(KeyringError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw KeyringError.openSSLFailed("allocate a cipher") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: input.count + PKCS7.blockSize)
        var written: Int32 = 0
        var finished: Int32 = 0
        let done =
            EVP_CipherInit_ex(context, EVP_aes_128_cbc(), nil, key, iv, encrypting ? 1 : 0) == 1
            && EVP_CIPHER_CTX_set_padding(context, 0) == 1
            && EVP_CipherUpdate(context, &output, &written, input, Int32(input.count)) == 1
            && output.withUnsafeMutableBufferPointer { buffer in
                EVP_CipherFinal_ex(context, buffer.baseAddress! + Int(written), &finished) == 1
            }
        guard done else {
            Self.wipe(&output)
            throw KeyringError.openSSLFailed(encrypting ? "encrypt a secret" : "decrypt a secret")
        }
        let count = Int(written + finished)
        let result = Array(output.prefix(count))
        Self.wipe(&output)
        return result
    }

    /// HKDF (RFC 5869) with SHA-256, no salt (so a hash's length of zeros) and no info.
    static func hkdfSHA256(_ inputKey: [UInt8], count: Int) throws(KeyringError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw KeyringError.openSSLFailed("set up HKDF") }
        defer { EVP_PKEY_CTX_free(context) }
        var derived = [UInt8](repeating: 0, count: count)
        var length = count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
            EVP_PKEY_CTX_set1_hkdf_key(context, inputKey, Int32(inputKey.count)) == 1,
            EVP_PKEY_derive(context, &derived, &length) == 1, length == count
        else { throw KeyringError.openSSLFailed("derive the session key") }
        return derived
    }

    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}
