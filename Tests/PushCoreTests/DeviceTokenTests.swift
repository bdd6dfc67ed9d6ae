import PushCore
import Testing

@Suite struct DeviceTokenTests {
    static let sequentialHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

    @Test func fromBytes() throws {
        let token = try DeviceToken(bytes: Array(0..<32))
        #expect(token.hex == Self.sequentialHex)
        #expect(token.shortID == "00010203")
        #expect(try DeviceToken(bytes: [UInt8](repeating: 0xFF, count: 32)).hex == String(repeating: "f", count: 64))
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func wrongByteCount(_ count: Int) {
        #expect(throws: DeviceTokenError.wrongByteCount(count)) {
            try DeviceToken(bytes: [UInt8](repeating: 7, count: count))
        }
    }

    @Test(arguments: [sequentialHex, sequentialHex + "\n", sequentialHex + "\r\n"])
    func parses(_ text: String) throws {
        #expect(try DeviceToken(parsing: text) == DeviceToken(bytes: Array(0..<32)))
    }

    @Test(arguments: [
        "",
        "\n",
        String(sequentialHex.dropLast()),
        sequentialHex + "0",
        sequentialHex + "\n\n",
        sequentialHex + " ",
        " " + sequentialHex,
        "\n" + sequentialHex,
        sequentialHex.uppercased(),
        String(sequentialHex.dropLast()) + "g",
        "0x" + String(sequentialHex.dropFirst(2)),
        String(sequentialHex.dropLast()) + "１",
    ])
    func rejects(_ text: String) {
        #expect(throws: DeviceTokenError.notHex) { try DeviceToken(parsing: text) }
    }

    @Test func roundTripsThroughItsHex() throws {
        let token = try DeviceToken(bytes: [UInt8](repeating: 0xA5, count: 32))
        #expect(try DeviceToken(parsing: token.hex) == token)
    }

    @Test func printsOnlyTheShortID() throws {
        let token = try DeviceToken(bytes: Array(0..<32))
        #expect("\(token)" == "00010203…")
        #expect(!"\(token)".contains(Self.sequentialHex))
    }
}
