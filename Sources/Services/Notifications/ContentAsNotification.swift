import Glibc
import PushCore
import SystemCalls

extension Notification {
    /// `content` as it is sent, naming `icon` (`appIcon(environment:)`): what the daemon shows
    /// and what `gbnotifyctl test` shows look alike.
    public init(_ content: NotificationContent, icon: String) {
        self.init(
            summary: content.summary, body: content.body, icon: icon,
            actions: stride(from: 0, to: content.actions.count - 1, by: 2).map {
                Action(key: content.actions[$0], label: content.actions[$0 + 1])
            },
            desktopEntry: NotificationContent.desktopEntry, category: content.category,
            urgency: content.urgency == .low ? .low : .normal,
            sound: content.sound, staysUntilDismissed: content.staysUntilDismissed,
            inlineReply: content.inlineReply.map { InlineReply(placeholder: $0.placeholder, submitLabel: $0.submitLabel) })
    }

    /// The icon every notification names (`AppIcon.choose`): the installed file, or the source
    /// tree's for a build, as a `file://` URI; else the theme's name.
    public static func appIcon(environment: [String: String]) -> String {
        AppIcon.choose(
            dataDirectories: AppIcon.dataDirectories(environment: environment), executableDirectory: RunningProgram.directory,
            exists: { access($0, F_OK) == 0 })
    }
}
