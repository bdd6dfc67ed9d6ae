import TestSupport
import Testing

/// What CloseNotification does on the servers that take a popup away at once (MATE, LXQt):
/// shows one titled `title`, withdraws it, and checks that it is closed with reason 3 (closed by
/// its sender) and gone from the screen.
func expectWithdrawnWithReasonThree(_ title: String, by client: NotificationsClient, from screen: OnScreen) async throws {
    let id = try await client.notify(title: title, timeout: 0)
    try await screen.waitForPopup(titled: title)

    try await client.closeNotification(id)

    #expect(try await client.next("NotificationClosed", id: id).arguments == [.uint32(id), .uint32(3)])
    try await screen.waitUntilGone(titled: title)
}
