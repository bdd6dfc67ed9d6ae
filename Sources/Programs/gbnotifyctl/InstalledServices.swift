import Foundation
import Glibc
import PushCore

extension ActivatableService {
    /// A service file is a few lines; reading stops past this. Only regular files are opened
    /// (links followed): a FIFO or a device there cannot hold gbnotifyctl.
    private static let readLimit = 64 * 1024

    /// The service file the session bus would start `name` by: the first that offers it, in the
    /// bus's search order. Where one directory holds several (dunst and mako both installed),
    /// dbus-daemon takes the one it happened to read first; this names the first by file name.
    /// It only reads files; nothing is started.
    static func installed(
        offering name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ActivatableService? {
        for directory in directories(environment: environment) {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for file in files.sorted() where file.hasSuffix(".service") {
                let path = directory + "/" + file
                var status = stat()
                guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                      let handle = FileHandle(forReadingAtPath: path) else { continue }
                let data = try? handle.read(upToCount: readLimit)
                try? handle.close()
                if let data, let service = ActivatableService(file: file, contents: String(decoding: data, as: UTF8.self), offering: name) {
                    return service
                }
            }
        }
        return nil
    }
}
