/// The daemon's own name on the session bus, which `gbnotifyctl` calls: its names, its methods
/// and their arguments, written here once. The exported object, its introspection XML and every
/// call gbnotifyctl makes take them from here.
public enum DaemonInterface {
    public static let busName = "org.gitbay.Notify1"
    public static let objectPath = "/org/gitbay/Notify1"
    public static let interface = "org.gitbay.Notify1"

    /// The error `Reload()` answers with when part of the reload could not be applied; its
    /// message says what and why.
    public static let reloadFailedError = "\(interface).Error.ReloadFailed"
    /// The error `Deliver()` answers with when the payload woke no account; its message says why.
    public static let payloadDroppedError = "\(interface).Error.PayloadDropped"

    /// One D-Bus argument: its name in the introspection data and its type signature.
    public struct Argument: Sendable {
        public let name: String
        public let signature: String
    }

    public enum Method: String, CaseIterable, Sendable {
        /// `Reload()`: read the config and the accounts again.
        case reload = "Reload"
        /// `Status() -> s`: the daemon's status as JSON (`DaemonStatus`).
        case status = "Status"
        /// `Deliver(s payload) -> s account`: a payload as a relay's `message` goes in; the
        /// account it woke comes out (`Account.displayName`), or `payloadDroppedError`.
        case deliver = "Deliver"

        public var inputs: [Argument] {
            switch self {
            case .reload, .status: []
            case .deliver: [Argument(name: "payload", signature: "s")]
            }
        }

        public var outputs: [Argument] {
            switch self {
            case .reload: []
            case .status: [Argument(name: "status_json", signature: "s")]
            case .deliver: [Argument(name: "account", signature: "s")]
            }
        }

        public var inputSignature: String { inputs.map(\.signature).joined() }
        public var outputSignature: String { outputs.map(\.signature).joined() }
    }

    /// The interface's introspection XML, derived from `Method`.
    public static var introspection: String {
        var lines = ["  <interface name=\"\(interface)\">"]
        for method in Method.allCases {
            let arguments = method.inputs.map { ($0, "in") } + method.outputs.map { ($0, "out") }
            guard !arguments.isEmpty else {
                lines.append("    <method name=\"\(method.rawValue)\"/>")
                continue
            }
            lines.append("    <method name=\"\(method.rawValue)\">")
            for (argument, direction) in arguments {
                lines.append(
                    "      <arg name=\"\(argument.name)\" type=\"\(argument.signature)\" direction=\"\(direction)\"/>")
            }
            lines.append("    </method>")
        }
        lines.append("  </interface>")
        return lines.joined(separator: "\n")
    }
}
