import Curl
import Foundation

/// The stand-in's SSH side (`Tests/Standin/standin_ssh.py`): hostile answers for its SSH front,
/// what the front was asked, and a token's standing over the API.
extension Standin {
    /// What the SSH front answers instead of the real answer, once.
    public enum SSHFault: Sendable {
        /// This text instead of the answer; the command still runs.
        case stdout(String)
        /// The answer padded with spaces to this many bytes.
        case stdoutBytes(Int)
        /// The answer with this in place of the minted token.
        case token(String)
        /// No answer until the client goes.
        case stall
    }

    public func addSSHFault(_ fault: SSHFault, argvPrefix: [String] = []) async throws {
        struct Match: Encodable {
            let argvPrefix: [String]
            enum CodingKeys: String, CodingKey { case argvPrefix = "argv_prefix" }
        }
        struct Body: Encodable {
            let match: Match
            var stdout: String?
            var stdoutBytes: Int?
            var token: String?
            var stall: Bool?
            enum CodingKeys: String, CodingKey {
                case match, stdout, token, stall
                case stdoutBytes = "stdout_bytes"
            }
        }
        var body = Body(match: Match(argvPrefix: argvPrefix))
        switch fault {
        case .stdout(let text): body.stdout = text
        case .stdoutBytes(let count): body.stdoutBytes = count
        case .token(let token): body.token = token
        case .stall: body.stall = true
        }
        struct Reply: Decodable { let id: Int }
        let _: Reply = try await sshControl.post("ssh/faults", json: String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
    }

    /// One command the SSH front was given.
    public struct SSHCommand: Sendable, Decodable {
        public let username: String
        public let keyScope: String
        /// The command string as OpenSSH handed it over.
        public let command: String
        /// As the server split it, `--json` taken out; nil when it could not be split.
        public let argv: [String]?
        public let exitCode: Int?
        public let fault: String?
    }

    public func sshCommands() async throws -> [SSHCommand] {
        struct Reply: Decodable { let commands: [SSHCommand] }
        let reply: Reply = try await sshControl.get("ssh/commands")
        return reply.commands
    }

    /// The HTTP status of `whoami` with `token` over the API: 200 while it is valid, 401 once
    /// revoked.
    public func whoamiStatus(token: String) async throws -> Int {
        let request = HTTPRequest(
            mayUseProxy: false, method: .get, url: "\(url)/api/v1/read?argv=whoami", headers: ["Authorization": "Bearer \(token)"])
        let options = TransferOptions(stallTimeout: .seconds(30), overallTimeout: .seconds(30), caFile: caFile, maxBodyBytes: 1 << 20)
        return try await HTTPSession.shared.perform(request, options: options).status
    }

    private var sshControl: ControlAPI { ControlAPI(root: "\(url)/_standin", caFile: caFile) }
}
