import PushCore
import Testing

@Suite struct APITokenTests {
    static let secretText = "gb_Zq9S3cr3tV4lue"

    @Test(arguments: [
        ("gb_Zq9S3cr3tV4lue", "gb_Zq9S3cr3tV4lue"),
        ("gb_Zq9S3cr3tV4lue\n", "gb_Zq9S3cr3tV4lue"),
        ("gb_Zq9S3cr3tV4lue\r\n", "gb_Zq9S3cr3tV4lue"),
        ("  \tgb_Zq9S3cr3tV4lue  \n", "gb_Zq9S3cr3tV4lue"),
        ("legacy-token_1234", "legacy-token_1234"),
        ("gb_!#$%&'()*+,-./:;<=>?@[]^_`{|}~", "gb_!#$%&'()*+,-./:;<=>?@[]^_`{|}~"),
    ])
    func acceptsAndTrims(_ raw: String, _ secret: String) throws {
        #expect(try APIToken(raw).secret == secret)
    }

    @Test func lengthLimitIsInclusive() throws {
        let longest = "gb_" + String(repeating: "x", count: APIToken.maximumLength - 3)
        #expect(try APIToken(longest).secret == longest)
        #expect(throws: TokenError.tooLong) { try APIToken(longest + "x") }
    }

    @Test(arguments: [
        ("", TokenError.empty),
        ("   \n", .empty),
        ("\n", .empty),
        ("gb_Zq9S3cr3t V4lue", .invalidCharacter),
        ("gb_Zq9S3cr3t\tV4lue", .invalidCharacter),
        ("gb_Zq9S3cr3t\nV4lue", .invalidCharacter),
        ("gb_Zq9S3cr3t\u{0}V4lue", .invalidCharacter),
        ("gb_Zq9S3cr3t\u{7F}V4lue", .invalidCharacter),
        ("gb_Zq9S3cr3t\u{1B}V4lue", .invalidCharacter),
        ("gb_Zq9S3cr3tVälue", .invalidCharacter),
        ("gb_Zq9S3cr3t\u{200B}V4lue", .invalidCharacter),
    ])
    func rejects(_ raw: String, _ error: TokenError) {
        #expect(throws: error) { try APIToken(raw) }
    }

    @Test func gitbayPrefixIsReportedNotRequired() throws {
        #expect(try APIToken("gb_abc").hasGitbayPrefix)
        #expect(try !APIToken("abc").hasGitbayPrefix)
        #expect(try !APIToken("GB_abc").hasGitbayPrefix)
    }

    @Test(arguments: ["gb_Zq9S3cr3tV4lue", "Zq9S3cr3tV4lue"])
    func printingNeverShowsTheSecret(_ raw: String) throws {
        let token = try APIToken(raw)
        var dumped = ""
        dump(token, to: &dumped)
        let renderings = [
            "\(token)", String(describing: token), String(reflecting: token), token.description,
            token.debugDescription, "\([token])", "\(Optional(token) as Any)", dumped,
        ]
        for rendering in renderings {
            #expect(!rendering.contains("Zq9S3cr3tV4lue"), "\(rendering)")
            #expect(rendering.contains("redacted"), "\(rendering)")
        }
        #expect(Mirror(reflecting: token).children.isEmpty)
    }

    @Test func descriptionKeepsOnlyThePrefix() throws {
        #expect(try APIToken("gb_Zq9S3cr3tV4lue").description == "gb_…(redacted)")
        #expect(try APIToken("Zq9S3cr3tV4lue").description == "…(redacted)")
    }

    @Test(arguments: [
        "gb_Zq9S3cr3tV4lue with a space",
        "gb_Zq9S3cr3tV4lue\u{1B}[31m",
        "gb_Zq9S3cr3tV4lue" + String(repeating: "9", count: 600),
    ])
    func errorsNeverShowTheToken(_ raw: String) {
        do {
            _ = try APIToken(raw)
            Issue.record("accepted a bad token")
        } catch {
            for rendering in ["\(error)", String(reflecting: error), error.description] {
                #expect(!rendering.contains("Zq9S3cr3tV4lue"), "\(rendering)")
                #expect(rendering.contains("API token"), "\(rendering)")
            }
        }
    }
}
