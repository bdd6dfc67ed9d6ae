/// A service the session bus starts on demand, as its D-Bus service file
/// (`dbus-1/services/*.service`) describes it: doctor and `gbnotifyctl test` name the
/// notification server the bus would start ("mako (fr.emersion.mako.service)") rather than
/// report that none runs.
public struct ActivatableService: Sendable, Equatable, CustomStringConvertible {
    /// The file's name, which is how a user finds it again.
    public let file: String
    /// The program its `Exec` line starts, by its last path component.
    public let program: String

    public init(file: String, program: String) {
        self.file = file
        self.program = program
    }

    /// The service `contents` describes, if it is a `[D-BUS Service]` offering `name`, or nil.
    /// The file's syntax is the config file's (`key=value` under a header); a file that is not
    /// one is not a service of that name.
    public init?(file: String, contents: String, offering name: String) {
        guard let document = try? ConfigKeyFile.document(of: contents),
              let section = document.sections.first(where: { $0.header == "D-BUS Service" }),
              section.entries.contains(where: { $0.key == "Name" && $0.value == name }),
              let exec = section.entries.first(where: { $0.key == "Exec" })?.value,
              let command = exec.split(whereSeparator: { $0 == " " || $0 == "\t" }).first,
              let program = command.split(separator: "/").last
        else { return nil }
        self.init(file: file, program: String(program))
    }

    public var description: String { "\(program) (\(file))" }

    /// Where the session bus looks for service files, first match first, as the D-Bus
    /// specification lists them: the XDG data directories (the icon's, `AppIcon`), each with
    /// `dbus-1/services`.
    public static func directories(environment: [String: String]) -> [String] {
        AppIcon.dataDirectories(environment: environment).map { $0 + "/dbus-1/services" }
    }
}
