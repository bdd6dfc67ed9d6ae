import PushCore

/// A notice delivered as a payload (relay or `Deliver`), as the presenter gets it: what to
/// show, and how to learn the inbox row it is, which "Mark read" and withdrawal need.
public struct DeliveredNotice: Sendable {
    public let notice: PushedNotice
    private let pairedRow: @Sendable () -> InboxItem?
    private let lookUp: @Sendable () async -> InboxItem?

    /// - Parameters:
    ///   - pairedRow: the row, once a poll has paired it with the notice; no request.
    ///   - lookUp: the row, paired or else looked up in the account's unread list now.
    public init(
        _ notice: PushedNotice, pairedRow: @escaping @Sendable () -> InboxItem?,
        lookUp: @escaping @Sendable () async -> InboxItem?
    ) {
        self.notice = notice
        self.pairedRow = pairedRow
        self.lookUp = lookUp
    }

    public var account: Account { notice.account }

    /// The row a poll has paired with this notice; nil while none has.
    public var row: InboxItem? { pairedRow() }

    /// The row, asking the server when no poll has paired one yet; nil when the notice is not
    /// unread there (read already) or the server could not be asked.
    public func findRow() async -> InboxItem? {
        await lookUp()
    }
}
