import Glibc
import PushCore

/// The config file on disk: where it is, and reading it into `DaemonSettings`.
public enum ConfigFile {
    /// `$XDG_CONFIG_HOME/gbnotifyd/config`, or `~/.config/gbnotifyd/config`.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/gbnotifyd/config"
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return home + "/.config/gbnotifyd/config"
        }
        return nil
    }

    /// The settings the file at `path` gives; every default when there is no file. The error
    /// names the file, and the line and key when the problem is one line.
    public static func load(_ path: String) throws(ConfigFileError) -> DaemonSettings {
        guard let text = try read(path) else { return DaemonSettings(config: .defaults) }
        do {
            return DaemonSettings(config: try Config.parse(text))
        } catch {
            throw ConfigFileError(path: path, problem: "\(error)")
        }
    }

    /// The file's text, nil when it does not exist. One byte more than the parser accepts is
    /// read, so an oversized file is reported as such rather than cut short and parsed.
    private static func read(_ path: String) throws(ConfigFileError) -> String? {
        // Non-blocking, so a FIFO put in its place cannot hang the daemon.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw ConfigFileError(path: path, problem: "cannot open it: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let limit = 64 * 1024 + 1
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let count = bytes[filled...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigFileError(path: path, problem: "cannot read it: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        // Over the limit, the parser rejects it for its size, whatever its bytes.
        guard filled < limit else { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes[..<filled], as: UTF8.self) else {
            throw ConfigFileError(path: path, problem: "it is not UTF-8 text")
        }
        return text
    }
}

/// Why the config file cannot be used, as one line: `config /home/u/.config/gbnotifyd/config:
/// line 4: poll-interval: "5" is below the minimum of 10 seconds`.
public struct ConfigFileError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "config \(path): \(problem)" }
}
