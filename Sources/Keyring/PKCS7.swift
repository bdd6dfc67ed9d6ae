/// PKCS#7 padding to the AES block, as the Secret Service's `aes128-cbc-pkcs7` sessions use it:
/// always 1 to 16 bytes, each holding the count. Done here rather than by OpenSSL so that a bad
/// padding from the service is a thrown error with a reason, checked the way libsecret checks it.
enum PKCS7 {
    static let blockSize = 16

    struct BadPadding: Error, Equatable {}

    static func pad(_ bytes: [UInt8]) -> [UInt8] {
        let count = blockSize - bytes.count % blockSize
        return bytes + [UInt8](repeating: UInt8(count), count: count)
    }

    /// Throws unless `padded` is whole blocks ending in a valid padding.
    static func unpad(_ padded: [UInt8]) throws(BadPadding) -> [UInt8] {
        guard !padded.isEmpty, padded.count % blockSize == 0, let last = padded.last else { throw BadPadding() }
        let count = Int(last)
        guard (1...blockSize).contains(count), padded.suffix(count).allSatisfy({ $0 == last }) else {
            throw BadPadding()
        }
        return Array(padded.dropLast(count))
    }
}
