import Desktop
import Logging
import PushCore

/// Where news goes when there is no desktop to show it on: one log line per notice and per
/// change of an account's unread count.
enum LogSink {
    static func sink(_ logger: Logger) -> DesktopSink {
        { news in
            guard case .update(let update) = news else { return }
            let name = update.account.displayName
            for notice in update.notices {
                switch notice {
                case .item(let item):
                    logger.notice("\(name): new notice \(item.id): \(item.repo): \(item.actor) \(item.summary)")
                case .summary(let count, let isAtLeast, _, let isFirstSight):
                    logger.notice("\(name): summary: \(count)\(isAtLeast ? "+" : "") \(isFirstSight ? "unread" : "new")")
                }
            }
            logger.info("\(name): \(update.unread.badgeCount)\(update.unread.isAtLeast ? "+" : "") unread")
        }
    }
}
