import DBus
import Testing

@Suite("Bus names")
struct NameTests {
    @Test("the first connection becomes primary owner, a second one is refused")
    func requestAndRelease() async throws {
        let first = try await connectToTestBus()
        let second = try await connectToTestBus()
        let name = "org.gitbay.DBusTests.\(uniqueElement("Owned"))"

        #expect(try await first.nameHasOwner(name) == false)
        #expect(try await first.nameOwner(name) == nil)
        #expect(try await first.requestName(name))
        #expect(try await first.requestName(name), "asking again for a name we own")
        #expect(try await second.requestName(name) == false)
        #expect(try await second.nameHasOwner(name))
        #expect(try await second.nameOwner(name) == first.uniqueName)

        try await first.releaseName(name)
        #expect(try await second.nameHasOwner(name) == false)
        #expect(try await second.requestName(name))
        await first.close()
        await second.close()
    }

    @Test("a name watch reports the current owner, then a second connection taking and releasing it")
    func watchTakeAndRelease() async throws {
        let watcher = try await connectToTestBus()
        let other = try await connectToTestBus()
        let name = "org.gitbay.DBusTests.\(uniqueElement("Watched"))"

        var owners = try await watcher.watchNameOwner(name).makeAsyncIterator()
        #expect(await owners.next() == .some(nil))
        #expect(try await other.requestName(name))
        #expect(await owners.next() == other.uniqueName)
        try await other.releaseName(name)
        #expect(await owners.next() == .some(nil))
        await watcher.close()
        await other.close()
    }

    @Test("a name watch starts from an existing owner and sees it leave the bus")
    func watchOwnerLeaving() async throws {
        let watcher = try await connectToTestBus()
        let owner = try await connectToTestBus()
        let name = "org.gitbay.DBusTests.\(uniqueElement("Leaving"))"
        #expect(try await owner.requestName(name))

        let owners = try await watcher.watchNameOwner(name)
        var iterator = owners.makeAsyncIterator()
        #expect(await iterator.next() == owner.uniqueName)
        await owner.close()
        #expect(await iterator.next() == .some(nil))
        await watcher.close()
        #expect(await iterator.next() == nil, "the stream ends with the connection")
    }
}
