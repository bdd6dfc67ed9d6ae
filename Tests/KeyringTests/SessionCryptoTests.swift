@testable import Keyring
import Testing

/// The pieces of an encrypted Secret Service session, against fixed vectors: none needs a bus.
struct SessionCryptoTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func paddingFillsToTheBlockWithItsCount() throws {
        #expect(PKCS7.pad([]) == [UInt8](repeating: 16, count: 16))
        #expect(PKCS7.pad([1, 2, 3]) == [1, 2, 3] + [UInt8](repeating: 13, count: 13))
        let whole = [UInt8](repeating: 7, count: 16)
        #expect(PKCS7.pad(whole) == whole + [UInt8](repeating: 16, count: 16))
        for length in 0..<40 {
            let data = [UInt8](repeating: 0xAB, count: length)
            #expect(try PKCS7.unpad(PKCS7.pad(data)) == data)
        }
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("not whole blocks", [UInt8](repeating: 1, count: 15)),
        ("zero count", [UInt8](repeating: 0, count: 16)),
        ("count above a block", [UInt8](repeating: 17, count: 32)),
        ("inconsistent bytes", [UInt8](repeating: 0, count: 13) + [2, 3, 3]),
    ])
    func badPaddingIsRefused(_ name: String, _ padded: [UInt8]) {
        #expect(throws: PKCS7.BadPadding.self, "\(name)") { try PKCS7.unpad(padded) }
    }

    /// RFC 5869, test case 3: SHA-256, no salt, no info, as the session uses HKDF.
    @Test func hkdfMatchesRFC5869WithoutSaltOrInfo() throws {
        let derived = try SessionCipher.hkdfSHA256([UInt8](repeating: 0x0B, count: 22), count: 42)
        #expect(derived == Self.bytes(
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    /// NIST SP 800-38A, F.2.1 (CBC-AES128), the first two blocks.
    @Test func aesCBCMatchesNIST() throws {
        let cipher = SessionCipher(key: Self.bytes("2b7e151628aed2a6abf7158809cf4f3c"))
        let iv = Self.bytes("000102030405060708090a0b0c0d0e0f")
        let plaintext = Self.bytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
        let ciphertext = Self.bytes("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2")
        #expect(try cipher.crypt(plaintext, iv: iv, encrypting: true) == ciphertext)
        #expect(try cipher.crypt(ciphertext, iv: iv, encrypting: false) == plaintext)
    }

    /// A whole secret as a service would send it: key from a 128-byte shared secret, PKCS#7,
    /// AES-128-CBC. The expected bytes come from another implementation (Python's
    /// `cryptography`), not from this code.
    @Test func sessionKeyAndCipherMatchAnIndependentVector() throws {
        let cipher = try SessionCipher(sharedSecret: (0..<128).map { UInt8($0) })
        let iv = (0..<16).map { UInt8($0) }
        let secret = Array("gb_0123456789abcdef".utf8)
        let expected = Self.bytes("05d2676e1a157481e979cc7aefdaf4645dbeda0c05f336e6c0569e20f19c88ea")
        #expect(try cipher.crypt(PKCS7.pad(secret), iv: iv, encrypting: true) == expected)
        #expect(try cipher.decrypt(expected, iv: iv) == secret)
    }

    @Test func encryptionRoundTripsWithAFreshIVEachTime() throws {
        let cipher = SessionCipher(key: [UInt8](repeating: 0x42, count: 16))
        let secret = Array("gb_roundtrip".utf8)
        let first = try cipher.encrypt(secret)
        let second = try cipher.encrypt(secret)
        #expect(first.iv.count == 16 && first.ciphertext.count == 16)
        #expect(first.iv != second.iv && first.ciphertext != second.ciphertext)
        #expect(try cipher.decrypt(first.ciphertext, iv: first.iv) == secret)
        #expect(try cipher.decrypt(second.ciphertext, iv: second.iv) == secret)
    }

    @Test func aDamagedSecretIsAnErrorNotGarbage() throws {
        let cipher = SessionCipher(key: [UInt8](repeating: 0x42, count: 16))
        let iv = [UInt8](repeating: 0, count: 16)
        // A block whose plaintext ends in 0x00: never a valid padding.
        let badlyPadded = try cipher.crypt([UInt8](repeating: 0, count: 16), iv: iv, encrypting: true)
        #expect(throws: KeyringError.failed("a secret from the Secret Service did not decrypt (bad padding)")) {
            try cipher.decrypt(badlyPadded, iv: iv)
        }
        #expect(throws: KeyringError.self) { try cipher.decrypt(badlyPadded, iv: [1, 2, 3]) }
        #expect(throws: KeyringError.self) { try cipher.decrypt(Array(badlyPadded.prefix(15)), iv: iv) }
        #expect(throws: KeyringError.self) { try cipher.decrypt([], iv: iv) }
    }

    @Test func twoPartiesAgreeOnTheSharedSecret() throws {
        let ours = try DiffieHellman()
        let theirs = try DiffieHellman()
        #expect(ours.publicKey != theirs.publicKey)
        #expect(ours.publicKey.count <= 128 && ours.publicKey.first != 0)
        let secret = try ours.sharedSecret(withPeer: theirs.publicKey)
        #expect(secret.count == 128)
        #expect(secret == (try theirs.sharedSecret(withPeer: ours.publicKey)))
    }

    @Test func aPeerKeyOutsideTheGroupIsRefused() throws {
        let exchange = try DiffieHellman()
        let prime = Self.bytes(
            "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd"
                + "ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed"
                + "ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff")
        var primeMinusOne = prime
        primeMinusOne[127] -= 1
        for peer in [[], [0], [1], primeMinusOne, prime, [UInt8](repeating: 0xFF, count: 129)] {
            #expect(throws: KeyringError.self, "\(peer.count) bytes") { try exchange.sharedSecret(withPeer: peer) }
        }
        #expect(throws: Never.self) { try exchange.sharedSecret(withPeer: [2]) }
    }
}
