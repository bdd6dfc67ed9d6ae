import Curl
import PushCore
import SystemCalls

/// The config file on disk: where it is, and reading it into a `Config`.
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

    /// The config the file at `path` gives; every default when there is no file. The error
    /// names the file, and the line and key when the problem is one line.
    public static func load(_ path: String) throws(ConfigFileError) -> Config {
        guard let text = try read(path) else { return .defaults }
        let config: Config
        do {
            config = try Config.parse(text)
        } catch {
            throw ConfigFileError(path: path, problem: "\(error)")
        }
        try checkCAFile(config, path: path)
        return config
    }

    /// A `ca-file` that is not a regular file (`CAFileCheck`) is refused with the config, as a
    /// bad value is.
    private static func checkCAFile(_ config: Config, path: String) throws(ConfigFileError) {
        guard let caFile = config.caFile, let problem = CAFileCheck.problem(with: caFile) else { return }
        throw ConfigFileError(path: path, problem: "ca-file: \(problem)")
    }

    /// The file's text, nil when it does not exist. One byte more than the parser accepts is
    /// read, so an oversized file is reported as such rather than cut short and parsed. Only a
    /// regular file is read: a FIFO put in its place would read as empty, every setting its
    /// default and every rule gone, and a device as whatever it gives.
    private static func read(_ path: String) throws(ConfigFileError) -> String? {
        let limit = 64 * 1024 + 1
        let bytes: [UInt8]
        do {
            guard let read = try FileDescriptor.readRegularFile(path, upTo: limit) else { return nil }
            bytes = read
        } catch {
            throw ConfigFileError(path: path, problem: "\(error)")
        }
        // Over the limit, the parser rejects it for its size, whatever its bytes.
        guard bytes.count < limit else { return String(decoding: bytes, as: UTF8.self) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
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
