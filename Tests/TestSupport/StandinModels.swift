/// What the stand-in's control API takes and gives (Tests/Standin/README.md, "The control API").
/// Replies are decoded with snake case keys converted to camel case; what is sent names its keys.
extension Standin {
    public enum TokenScope: String, Sendable, Codable {
        case full
        case read
    }

    public enum AccountStatus: String, Sendable, Codable {
        case active
        case disabled
        case unverified
    }

    public enum ItemKind: String, Sendable {
        case issue
        case mr
        case build
    }

    /// `POST /_standin/config`: only the fields that are set change.
    public struct Config: Sendable, Encodable {
        public var apiEnabled: Bool?
        public var pushEnabled: Bool?
        public var dashboardUnread: Bool?
        public var readBurst: Int?
        public var readRefill: Double?
        public var writeBurst: Int?
        public var writeRefill: Double?
        public var writesPerMinute: Int?
        public var busy: Bool?
        public var siteURL: String?
        public var pushFormat: String?

        enum CodingKeys: String, CodingKey {
            case apiEnabled = "api_enabled", pushEnabled = "push_enabled", dashboardUnread = "dashboard_unread"
            case readBurst = "read_burst", readRefill = "read_refill", writeBurst = "write_burst"
            case writeRefill = "write_refill", writesPerMinute = "writes_per_minute", busy
            case siteURL = "site_url", pushFormat = "push_format"
        }

        public init(
            apiEnabled: Bool? = nil, pushEnabled: Bool? = nil, dashboardUnread: Bool? = nil,
            readBurst: Int? = nil, readRefill: Double? = nil, writeBurst: Int? = nil,
            writeRefill: Double? = nil, writesPerMinute: Int? = nil, busy: Bool? = nil,
            siteURL: String? = nil, pushFormat: String? = nil
        ) {
            self.apiEnabled = apiEnabled
            self.pushEnabled = pushEnabled
            self.dashboardUnread = dashboardUnread
            self.readBurst = readBurst
            self.readRefill = readRefill
            self.writeBurst = writeBurst
            self.writeRefill = writeRefill
            self.writesPerMinute = writesPerMinute
            self.busy = busy
            self.siteURL = siteURL
            self.pushFormat = pushFormat
        }
    }

    /// `POST /_standin/faults`: one action for the requests that match, `times` times (0: until
    /// cleared).
    public struct Fault: Sendable, Encodable {
        public enum Action: Sendable {
            case status(Int, body: String = "", headers: [String: String] = [:])
            case delay(seconds: Double)
            /// Reads the request and never answers.
            case stall
            /// Headers at once, then the body at this rate.
            case drip(bytesPerSecond: Double)
            case close
            case truncate(bytes: Int)
            /// The normal JSON answer padded to this size before gzip.
            case bodyBytes(Int)
            case badGzip
            case redirect(to: String)
        }

        public struct Match: Sendable, Encodable {
            public var pathPrefix: String?
            public var argvPrefix: [String]?
            public var username: String?
            public var method: String?

            enum CodingKeys: String, CodingKey {
                case pathPrefix = "path_prefix", argvPrefix = "argv_prefix", username, method
            }

            public init(pathPrefix: String? = nil, argvPrefix: [String]? = nil, username: String? = nil, method: String? = nil) {
                self.pathPrefix = pathPrefix
                self.argvPrefix = argvPrefix
                self.username = username
                self.method = method
            }
        }

        public var action: Action
        public var match: Match
        public var times: Int

        public init(_ action: Action, match: Match = Match(), times: Int = 1) {
            self.action = action
            self.match = match
            self.times = times
        }

        private enum Key: String, CodingKey {
            case match, times, status, body, headers, delay, stall, drip, close, truncate, redirect
            case bodyBytes = "body_bytes", badGzip = "bad_gzip"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(match, forKey: .match)
            try container.encode(times, forKey: .times)
            switch action {
            case .status(let status, let body, let headers):
                try container.encode(status, forKey: .status)
                try container.encode(body, forKey: .body)
                try container.encode(headers, forKey: .headers)
            case .delay(let seconds): try container.encode(seconds, forKey: .delay)
            case .stall: try container.encode(true, forKey: .stall)
            case .drip(let rate): try container.encode(rate, forKey: .drip)
            case .close: try container.encode(true, forKey: .close)
            case .truncate(let bytes): try container.encode(bytes, forKey: .truncate)
            case .bodyBytes(let bytes): try container.encode(bytes, forKey: .bodyBytes)
            case .badGzip: try container.encode(true, forKey: .badGzip)
            case .redirect(let url): try container.encode(url, forKey: .redirect)
            }
        }
    }

    /// One entry of `GET /_standin/requests`: a request as the stand-in received it.
    public struct LoggedRequest: Sendable, Decodable {
        public let seq: Int
        /// The connection's serial number: two requests with one serial shared a connection.
        public let connection: Int
        public let connectionRequest: Int
        /// When the stand-in read the request, on its monotonic clock, in seconds: compare
        /// differences only.
        public let time: Double
        public let method: String
        public let path: String
        /// The request target: path and query.
        public let target: String
        public let queryArgv: [String]?
        /// In arrival order, names as sent, values verbatim (`Authorization` included).
        public let headers: [[String]]
        public let bodyText: String?
        public let argv: [String]?
        public let stdin: String?
        public let username: String?
        public let status: Int?
        public let fault: String?

        /// The first value of the header `name`, compared without case.
        public func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    /// `GET /_standin/state`, the parts tests look at.
    public struct State: Sendable, Decodable {
        public struct User: Sendable, Decodable {
            public let username: String
            public let admin: Bool
            public let unread: Int
            public let version: Int
            public let etag: String
        }

        public struct Token: Sendable, Decodable {
            public let username: String
            /// Its name, as `token create --name` gave it (the control API names its own).
            public let name: String
            public let scope: TokenScope
            public let revoked: Bool
        }

        public struct Device: Sendable, Decodable {
            public let id: Int
            public let username: String
            public let label: String
            /// The full install token.
            public let token: String
        }

        public struct Notification: Sendable, Decodable {
            public let id: Int
            public let username: String
            public let repo: String
            public let kind: String
            public let path: String
            public let readAt: String?
        }

        public struct WatchState: Sendable, Decodable, Equatable {
            public let username: String
            public let repo: String
            /// `muted` or `watching`.
            public let state: String

            public init(username: String, repo: String, state: String) {
                self.username = username
                self.repo = repo
                self.state = state
            }
        }

        /// A push payload the server would have sent to a device.
        public struct Push: Sendable, Decodable {
            public struct Payload: Sendable, Decodable {
                public struct APS: Sendable, Decodable {
                    public struct Alert: Sendable, Decodable {
                        public let title: String
                        public let body: String
                    }

                    public let alert: Alert
                    public let badge: Int?
                    public let threadID: String?

                    enum CodingKeys: String, CodingKey {
                        case alert, badge
                        case threadID = "thread-id"
                    }
                }

                public let aps: APS
                public let path: String?
                public let instance: String?
                public let user: String?
            }

            public let deviceID: Int
            public let token: String
            public let payload: Payload

            enum CodingKeys: String, CodingKey {
                case token, payload
                case deviceID = "deviceId"
            }
        }

        public let users: [User]
        public let tokens: [Token]
        public let devices: [Device]
        public let notifications: [Notification]
        public let pushes: [Push]
        /// Every repository a user muted or watches (`repo mute|watch`); the default is absent.
        public let watchStates: [WatchState]
    }
}
