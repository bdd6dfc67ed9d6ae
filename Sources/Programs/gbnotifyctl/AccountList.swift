import Accounts
import CommandKit
import FoundationEssentials
import PushCore

struct AccountList: Command {
    static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List the accounts in the keyring and their registration.",
        discussion: """
            --json also gives each account's relay topic: its device token, which gitbay pushes to
            and a relay publishes on. Anyone who knows it can read what is published there.
            """,
        options: [json]
    )
    static let json = Option("--json", help: "Print a JSON array instead of a table.")

    var json: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag(Self.json)
    }

    func run() async throws -> Int32 {
        let (accounts, skipped) = try await Setup.accountManager().list()
        for reason in skipped {
            Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": reason]))
        }
        if json {
            let rows = accounts.map(Row.init)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.json(String(decoding: try encoder.encode(rows), as: UTF8.self))
        } else if accounts.isEmpty {
            Console.out(
                Localized.text(
                    "No accounts. Add one with: {command}", note: "gbnotifyctl status without accounts. {command}: the command (stays English).",
                    ["command": "gbnotifyctl account add URL"]))
        } else {
            for summary in accounts {
                // Tabs separate the columns: the text in them loses its own (and its newlines).
                Console.out([summary.account.displayName, summary.account.instance.url, summary.registrationSpoken].map(\.displaySafe).joined(separator: "\t"))
            }
        }
        return ExitStatus.success
    }

    private struct Row: Encodable {
        let account: String
        let instance: String
        let user: String
        let deviceID: Int64?
        let registration: String
        let topic: String?

        init(_ summary: AccountSummary) {
            account = summary.account.displayName
            instance = summary.account.instance.url
            user = summary.account.username
            if case .registered(let id) = summary.registration { deviceID = id } else { deviceID = nil }
            registration = summary.registrationDescription
            topic = summary.topic
        }

        enum CodingKeys: String, CodingKey {
            case account, instance, user, registration, topic
            case deviceID = "device_id"
        }

        /// Absent values are `null`, as in `gbnotifyctl status --json`.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(account, forKey: .account)
            try container.encode(instance, forKey: .instance)
            try container.encode(user, forKey: .user)
            try container.encode(deviceID, forKey: .deviceID)
            try container.encode(registration, forKey: .registration)
            try container.encode(topic, forKey: .topic)
        }
    }
}
