import DBus
import TestSupport
import Testing

@Suite("Values without a bus")
struct ValueTests {
    @Test("signatures are computed for every type, nested containers included")
    func signatures() {
        #expect(DBusValue.byte(1).signature == "y")
        #expect(DBusValue.bool(true).signature == "b")
        #expect(DBusValue.int16(1).signature == "n")
        #expect(DBusValue.uint16(1).signature == "q")
        #expect(DBusValue.int32(1).signature == "i")
        #expect(DBusValue.uint32(1).signature == "u")
        #expect(DBusValue.int64(1).signature == "x")
        #expect(DBusValue.uint64(1).signature == "t")
        #expect(DBusValue.double(1).signature == "d")
        #expect(DBusValue.string("").signature == "s")
        #expect(DBusValue.objectPath("/").signature == "o")
        #expect(DBusValue.signature("").signature == "g")
        #expect(DBusValue.array(elementSignature: "a{sv}", []).signature == "aa{sv}")
        #expect(DBusValue.vardict([:]).signature == "a{sv}")
        #expect(DBusValue.struct([.int32(1), .struct([.string("a"), .variant(.byte(1))])]).signature == "(i(sv))")
        #expect(DBusValue.variant(.int64(1)).signature == "v")
    }

    @Test("the shapes of Notify and of a launcher badge")
    func notificationShapes() {
        let notify: [DBusValue] = [
            .string("gbnotify"), .uint32(0), .string(""), .string("summary"), .string("body"),
            .stringArray(["default", "Open"]), .vardict(["urgency": .byte(1)]), .int32(-1),
        ]
        #expect(notify.map(\.signature).joined() == "susssasa{sv}i")
        let badge: [DBusValue] = [
            .string("application://gbnotify.desktop"), .vardict(["count": .int64(3), "count-visible": .bool(true)]),
        ]
        #expect(badge.map(\.signature).joined() == "sa{sv}")
    }

    @Test("vardict sorts its keys and wraps each value in a variant")
    func vardictIsDeterministic() {
        let value = DBusValue.vardict(["urgency": .byte(1), "category": .string("x-gitbay.issue"), "a": .bool(true)])
        guard case .dictionary("s", "v", let entries) = value else {
            Issue.record("not an a{sv}: \(value)")
            return
        }
        #expect(entries.map(\.key) == [.string("a"), .string("category"), .string("urgency")])
        #expect(
            entries.map(\.value) == [.variant(.bool(true)), .variant(.string("x-gitbay.issue")), .variant(.byte(1))])
        #expect(value.vardictValue == ["urgency": .byte(1), "category": .string("x-gitbay.issue"), "a": .bool(true)])
    }

    @Test("typed accessors answer only for their own type")
    func accessors() {
        #expect(DBusValue.string("s").stringValue == "s")
        #expect(DBusValue.objectPath("/a").stringValue == nil)
        #expect(DBusValue.objectPath("/a").objectPathValue == "/a")
        #expect(DBusValue.uint32(7).uint32Value == 7)
        #expect(DBusValue.uint32(7).int32Value == nil)
        #expect(DBusValue.int64(-3).int64Value == -3)
        #expect(DBusValue.bool(true).boolValue == true)
        #expect(DBusValue.byte(9).byteValue == 9)
        #expect(DBusValue.double(0.5).doubleValue == 0.5)
        #expect(DBusValue.variant(.uint64(1)).variantValue == .uint64(1))
        #expect(DBusValue.stringArray(["a", "b"]).stringArrayValue == ["a", "b"])
        #expect(DBusValue.array(elementSignature: "i", [.int32(1)]).stringArrayValue == nil)
        #expect(DBusValue.struct([.int16(1)]).structValue == [.int16(1)])
        #expect(DBusValue.dictionary(keySignature: "s", valueSignature: "s", []).vardictValue == nil)
    }

    @Test("match rules render in the bus's syntax, quotes escaped")
    func matchRuleSyntax() {
        #expect(DBusMatchRule().description == "type='signal'")
        #expect(
            DBusMatchRule(interface: "org.freedesktop.Notifications", member: "ActionInvoked").description
                == "type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'")
        #expect(
            DBusMatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", arg0: "it's").description
                == "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',arg0='it'\\''s'")
    }
}
