import CCrypto

/// One side of the Diffie-Hellman exchange that opens a `dh-ietf1024-sha256-aes128-cbc-pkcs7`
/// session: the 1024-bit MODP group 2 of RFC 2409, generator 2, numbers as unsigned big-endian
/// bytes on the wire. The private exponent never leaves this object and is wiped with it.
final class DiffieHellman {
    private let prime: OpaquePointer
    private let privateKey: OpaquePointer
    /// Ours, as minimal big-endian bytes (as libsecret sends it).
    let publicKey: [UInt8]

    /// The prime's length in bytes: the shared secret is always this long.
    private static let primeBytes = 128

    init() throws(KeyringError) {
        let prime = BN_get_rfc2409_prime_1024(nil)
        let privateKey = BN_secure_new()
        let generator = BN_new()
        let range = BN_dup(prime)
        defer {
            BN_free(generator)
            BN_free(range)
        }
        // The private key is uniform in [2, p-2]: neither 0, 1 nor p-1 gives a useful exchange.
        guard let prime, let privateKey, let generator, let range, BN_set_word(generator, 2) == 1,
            BN_sub_word(range, 3) == 1, BN_priv_rand_range(privateKey, range) == 1, BN_add_word(privateKey, 2) == 1,
            let publicKey = Self.power(generator, privateKey, prime, minimal: true)
        else {
            BN_clear_free(privateKey)
            BN_free(prime)
            throw KeyringError.openSSLFailed("generate a Diffie-Hellman key pair")
        }
        self.prime = prime
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    deinit {
        BN_clear_free(privateKey)
        BN_free(prime)
    }

    /// The shared secret with the service's public key, left-padded with zeros to the prime's
    /// length, as libsecret derives the session key from it. The caller wipes it after use.
    func sharedSecret(withPeer peerKey: [UInt8]) throws(KeyringError) -> [UInt8] {
        guard !peerKey.isEmpty, peerKey.count <= Self.primeBytes, let peer = BN_bin2bn(peerKey, Int32(peerKey.count), nil)
        else { throw KeyringError.failed("the Secret Service sent a session key of \(peerKey.count) bytes") }
        defer { BN_free(peer) }
        // 1 and p-1 (and anything outside the group) would make the secret guessable.
        let upper = BN_dup(prime)
        defer { BN_free(upper) }
        guard let upper, BN_sub_word(upper, 1) == 1, BN_cmp(peer, BN_value_one()) > 0, BN_cmp(peer, upper) < 0 else {
            throw KeyringError.failed("the Secret Service sent a session key outside the Diffie-Hellman group")
        }
        guard let secret = Self.power(peer, privateKey, prime, minimal: false) else {
            throw KeyringError.openSSLFailed("compute the shared secret")
        }
        return secret
    }

    /// `base ^ exponent mod prime` in constant time, as big-endian bytes: minimal, or padded to
    /// the prime's length. Nil when OpenSSL fails (out of memory).
    private static func power(
        _ base: OpaquePointer, _ exponent: OpaquePointer, _ prime: OpaquePointer, minimal: Bool
    ) -> [UInt8]? {
        let context = BN_CTX_secure_new()
        let result = BN_secure_new()
        defer {
            BN_CTX_free(context)
            BN_clear_free(result)
        }
        guard let context, let result, BN_mod_exp_mont_consttime(result, base, exponent, prime, context, nil) == 1
        else { return nil }
        let length = minimal ? (Int(BN_num_bits(result)) + 7) / 8 : primeBytes
        var bytes = [UInt8](repeating: 0, count: length)
        guard BN_bn2binpad(result, &bytes, Int32(length)) == Int32(length) else { return nil }
        return bytes
    }
}
