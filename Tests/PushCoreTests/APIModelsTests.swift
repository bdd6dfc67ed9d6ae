import PushCore
import Testing

/// Each model decoded from the data of a real envelope, through `APIResult`.
@Suite struct APIModelsTests {
    static func success(_ data: String) -> APIResult {
        APIResult(status: 200, headers: [:], body: Array(#"{"protocol_version":1,"exit_code":0,"data":\#(data)}"#.utf8))
    }

    @Test func whoami() throws {
        let whoami = try Self.success(#"{"username":"cmc","admin":true,"key_scope":"full","email":"x@y"}"#).decode(Whoami.self)
        #expect(whoami == Whoami(username: "cmc", admin: true, keyScope: "full"))
    }

    @Test func deviceRegistration() throws {
        #expect(try Self.success(#"{"id":7,"status":"registered"}"#).decode(DeviceRegistration.self)
            == DeviceRegistration(id: 7, status: "registered"))
    }

    @Test func deviceList() throws {
        let data = #"[{"id":7,"label":"gbnotifyd on laptop","token":"3fa9c2d1…","added":"2026-09-20T10:11:12Z"},"#
            + #"{"id":9,"label":"phone","token":"00ff00ff…","added":"2026-09-21T00:00:00Z"}]"#
        #expect(try Self.success(data).decode([Device].self) == [
            Device(id: 7, label: "gbnotifyd on laptop", token: "3fa9c2d1…", added: "2026-09-20T10:11:12Z"),
            Device(id: 9, label: "phone", token: "00ff00ff…", added: "2026-09-21T00:00:00Z"),
        ])
        #expect(try Self.success("[]").decode([Device].self) == [])
    }

    @Test func readResult() throws {
        #expect(try Self.success(#"{"read":3}"#).decode(ReadResult.self) == ReadResult(read: 3))
    }

    @Test(arguments: [
        (#"{"unread":5,"repos":[{"name":"krz/gitbay"}],"mrs":{"open":2}}"#, 5 as Int?),
        (#"{"unread":0}"#, 0),
        (#"{"repos":[]}"#, nil),
        (#"{"unread":null}"#, nil),
        ("{}", nil),
    ])
    func dashboard(_ data: String, _ unread: Int?) throws {
        #expect(try Self.success(data).decode(Dashboard.self) == Dashboard(unread: unread))
    }

    /// A count at or past Int's edge is clamped where it is parsed: issue 14's instance whose
    /// `dashboard.unread` was Int.max crashed the badge's sum of two accounts.
    @Test(arguments: [
        ("9223372036854775807", OutsideCount.maximum),
        ("18446744073709551616", OutsideCount.maximum),
        ("1e30", OutsideCount.maximum),
        ("1000001", OutsideCount.maximum),
        ("999999", 999_999),
        ("-9223372036854775808", 0),
    ])
    func dashboardCountsFromOutsideAreClamped(_ number: String, _ unread: Int) throws {
        #expect(try Self.success(#"{"unread":\#(number)}"#).decode(Dashboard.self).unread == unread)
    }

    @Test func dashboardWithAWrongUnreadFails() {
        #expect(throws: APIDecodingError.self) { try Self.success(#"{"unread":"5"}"#).decode(Dashboard.self) }
    }
}
