import DBus

/// A session with the Secret Service, which every secret travels in. Encrypted like
/// libsecret's (`dh-ietf1024-sha256-aes128-cbc-pkcs7`), so that a `dbus-monitor` capture a user
/// pastes into a bug report never holds a token; `plain` only with a service that supports
/// nothing else.
struct SecretSession {
    static let encryptedAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    static let plainAlgorithm = "plain"
    /// What libsecret gives a password, and so what `secret-tool` stores.
    static let contentType = "text/plain"

    let path: String
    /// Nil in a plain session.
    let cipher: SessionCipher?

    func encode(_ secret: String) throws(KeyringError) -> WireSecret {
        guard let cipher else {
            return WireSecret(session: path, parameters: [], value: Array(secret.utf8), contentType: Self.contentType)
        }
        var plaintext = Array(secret.utf8)
        defer { SessionCipher.wipe(&plaintext) }
        let (iv, ciphertext) = try cipher.encrypt(plaintext)
        return WireSecret(session: path, parameters: iv, value: ciphertext, contentType: Self.contentType)
    }

    /// Bytes that are not UTF-8 are repaired, as before; `APIToken` then refuses them.
    func decode(_ secret: WireSecret) throws(KeyringError) -> String {
        guard secret.session == path else {
            throw KeyringError.failed("the Secret Service sent a secret for another session")
        }
        guard let cipher else { return String(decoding: secret.value, as: UTF8.self) }
        var plaintext = try cipher.decrypt(secret.value, iv: secret.parameters)
        defer { SessionCipher.wipe(&plaintext) }
        return String(decoding: plaintext, as: UTF8.self)
    }
}

extension SecretService {
    /// Runs `body` in a new session, closed after it whatever happens.
    func withSession<Value>(_ body: (SecretSession) async throws -> Value) async throws -> Value {
        let session = try await openSession()
        let value: Value
        do {
            value = try await body(session)
        } catch {
            await close(session.path)
            throw error
        }
        await close(session.path)
        return value
    }

    /// Negotiates an encrypted session, or a plain one when the service answers that it does
    /// not support encryption (as libsecret falls back).
    private func openSession() async throws -> SecretSession {
        let exchange = try DiffieHellman()
        let reply: [DBusValue]
        do {
            reply = try await call(
                Self.path, Interface.service, "OpenSession",
                [.string(SecretSession.encryptedAlgorithm), .variant(.byteArray(exchange.publicKey))])
        } catch let error as DBusError where error.name == ErrorName.notSupported {
            let (_, path) = try SecretServiceReplies.openSession(
                await call(
                    Self.path, Interface.service, "OpenSession",
                    [.string(SecretSession.plainAlgorithm), .variant(.string(""))]))
            return SecretSession(path: path, cipher: nil)
        }
        let (output, path) = try SecretServiceReplies.openSession(reply)
        do {
            guard let peerKey = output.byteArrayValue else {
                throw KeyringError.failed("the Secret Service answered OpenSession without a public key")
            }
            return SecretSession(path: path, cipher: try SessionCipher(sharedSecret: exchange.sharedSecret(withPeer: peerKey)))
        } catch {
            await close(path)
            throw error
        }
    }

    /// Best effort: the service also ends our sessions when our connection goes.
    private func close(_ session: String) async {
        _ = try? await call(session, Interface.session, "Close")
    }
}
