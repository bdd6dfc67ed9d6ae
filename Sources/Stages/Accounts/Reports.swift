import PushCore
import StateStore

/// What became of registering this install with an account.
public enum Registration: Sendable, Equatable, CustomStringConvertible {
    case registered(deviceID: Int64)
    /// The instance runs with `[push] enabled = false`.
    case pushUnavailable
    /// The token is read-scoped: it can poll but not register.
    case readOnlyToken
    case failed(String)

    init(_ result: APIResult) {
        switch result {
        case .success:
            if let device = try? result.decode(DeviceRegistration.self) {
                self = .registered(deviceID: device.id)
            } else {
                self = .failed("the server's answer to device add had no device id")
            }
        case .pushUnavailable: self = .pushUnavailable
        case .readOnlyToken: self = .readOnlyToken
        default: self = .failed("\(result)")
        }
    }

    /// Read back from the state file, as `account list` shows it; nil when nothing was
    /// recorded yet.
    init?(_ record: AccountRecord?) {
        if let id = record?.deviceID {
            self = .registered(deviceID: id)
        } else if let error = record?.registrationError {
            self = switch error {
            case Self.pushUnavailable.description: .pushUnavailable
            case Self.readOnlyToken.description: .readOnlyToken
            default: .failed(error)
            }
        } else {
            return nil
        }
    }

    /// Records the outcome in the account's state, leaving the fields others own (the daemon's
    /// high-water mark and ETag) as they are.
    func apply(to record: inout AccountRecord) {
        if case .registered(let id) = self {
            record.deviceID = id
            record.registrationError = nil
        } else {
            record.deviceID = nil
            record.registrationError = description
        }
    }

    /// In English: the log, the JSON and the state file (which `init(_:)` reads back) go by it.
    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// `description` in the session's language, for a person (`account list`).
    public var spoken: String {
        switch self {
        case .registered(let id):
            Localized.text("registered as device {id}", note: "gbnotifyctl account list: this install's registration. {id}: a number.", ["id": String(id)])
        case .pushUnavailable:
            Localized.text("this instance does not send push notifications", note: "gbnotifyctl account list: why this install is not registered.")
        case .readOnlyToken:
            Localized.text("the token is read-only, so this install cannot register", note: "gbnotifyctl account list: why this install is not registered.")
        case .failed(let why):
            Localized.text(
                "registration failed: {reason}", note: "gbnotifyctl account list: why this install is not registered. {reason}: the error, in English.",
                ["reason": why])
        }
    }
}

public enum Deregistration: Sendable, Equatable {
    case notRegistered
    case removed(deviceID: Int64)
    case failed(deviceID: Int64, reason: String)
}

public struct AddReport: Sendable, Equatable {
    public let account: Account
    public let registration: Registration
    /// What became of the token gbnotify had minted for the account before, when this one
    /// replaced it.
    public let replacedRevocation: Revocation?
}

public struct RemoveReport: Sendable, Equatable {
    public let account: Account
    public let deregistration: Deregistration
    public let revocation: Revocation
}

public struct AccountSummary: Sendable, Equatable {
    public let account: Account
    /// Nil until a registration was recorded.
    public let registration: Registration?
    /// The account's device token: what it is registered for push with, and its relay topic.
    /// Nil until it is first registered.
    public let topic: String?

    init(account: Account, record: AccountRecord?) {
        self.account = account
        registration = Registration(record)
        topic = record?.deviceToken
    }

    /// What `account list` says of the registration, in the session's language.
    public var registrationSpoken: String {
        registration?.spoken
            ?? Localized.text("registration failed: not registered yet", note: "gbnotifyctl account list: no registration of this install was recorded yet.")
    }

    /// The same in English, for the JSON.
    public var registrationDescription: String {
        Localized.inEnglish { registrationSpoken }
    }
}
