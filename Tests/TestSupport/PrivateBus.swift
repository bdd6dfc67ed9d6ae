import Foundation

/// A bare dbus-daemon of a test's own, for "the bus went away" and "nothing on the bus": no
/// service on it and none it can start. Whole desktops (a bus with a keyring, a notification
/// server, a display) are `scripts/desktop-session`'s job; this is the one other way a test
/// starts a bus.
///
/// It lives on a lifeline (`LifelineProcess`): a shell between stops it once the lifeline
/// closes, which `stop()` does, or the kernel when this process ends however it ends, so that a
/// bus started for the whole run goes with the run.
public final class PrivateBus: Sendable {
    /// Its address, for `DBUS_SESSION_BUS_ADDRESS` or a connection.
    public let address: String
    private let process: LifelineProcess

    /// Starts one listening at `socket`, or at a socket of its own in a temporary directory.
    public init(at socket: String? = nil) async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-bus-\(UUID().uuidString).conf").path
        let listen = socket.map { "unix:path=\($0)" } ?? "unix:tmpdir=\(FileManager.default.temporaryDirectory.path)"
        try """
            <busconfig>
              <type>session</type>
              <listen>\(listen)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
              <!-- The standard session bus's limits (session.conf), as scripts/desktop-session's bus
                   has them: dbus-daemon's built-in ones are the system bus's, far lower. -->
              <limit name="max_incoming_bytes">1000000000</limit>
              <limit name="max_outgoing_bytes">1000000000</limit>
              <limit name="max_message_size">1000000000</limit>
              <limit name="max_completed_connections">100000</limit>
              <limit name="max_connections_per_user">100000</limit>
              <limit name="max_names_per_connection">50000</limit>
              <limit name="max_match_rules_per_connection">50000</limit>
              <limit name="max_replies_per_connection">50000</limit>
            </busconfig>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let argv = ["/bin/sh", "-c", #"</dev/null "$@" & cat >/dev/null; kill $!; wait $!"#, "sh",
                    "dbus-daemon", "--config-file=\(config)", "--nofork", "--nopidfile", "--print-address=1"]
        // dbus-daemon reads its config once, at start: the file goes once it has started or failed.
        defer { unlink(config) }
        process = try await LifelineProcess.started(argv, readyLines: 1, readyTimeout: .seconds(15))
        address = process.readyLines[0]
    }

    /// Stops the bus and waits until it has gone: every connection to it is lost.
    public func stop() async {
        await process.stop()
    }
}
