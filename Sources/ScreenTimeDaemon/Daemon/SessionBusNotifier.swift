import Logging
import ScreenTimeModel
import ServiceLifecycle
import Synchronization

/// Shows warnings and shields on the daemon user's desktop through `org.freedesktop.Notifications`, and turns the
/// shield's buttons into answers, as a service of its own: the engine loop queues notifications and takes answers
/// without waiting on the bus, so a notification server that hangs can't delay a tick or a shield. Connects when
/// the first notification comes and again after a failure (the desktop may start after the daemon); a notification
/// that can't be shown is logged, and the shield holds regardless.
public final class SessionBusNotifier: DaemonNotifier, Service, Sendable {
    private enum Request: Sendable {
        case warning(DesktopNotification)
        case shield(DesktopNotification, subject: ShieldSubject)
    }

    private let user: UserID
    private let address: String
    private let logger: Logger
    private let requests: AsyncStream<Request>
    private let continuation: AsyncStream<Request>.Continuation
    private let answers = Mutex<[NotificationAnswer]>([])
    /// What each shield notification on screen stands for.
    private let shields = Mutex<[NotificationID: ShieldSubject]>([:])
    /// Called when a button was pressed, so that a waiting owner takes the answer at once.
    private let answered: (@Sendable () -> Void)?

    /// Notifies `user` (the daemon's own user) on the bus at `address` (default: the user's session bus);
    /// `answered` is called (on the notifier's thread) whenever an answer is ready to take.
    public init(user: UserID, address: String? = nil, logger: Logger, answered: (@Sendable () -> Void)? = nil) {
        self.user = user
        self.answered = answered
        self.address = address ?? DesktopNotifier.sessionBusAddress()
        self.logger = logger
        (requests, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    public func warn(user: UserID, title: String, body: String) {
        guard user == self.user else { return }
        var warning = DesktopNotification(summary: title, body: body)
        warning.category = LimitWarningNotification.category
        continuation.yield(.warning(warning))
    }

    public func shield(
        user: UserID, subject: ShieldSubject, title: String, body: String, primaryLabel: String?, secondaryLabel: String?
    ) {
        guard user == self.user else { return }
        var shield = ShieldNotification(appName: title, message: body, secondary: secondaryLabel)
        if let primaryLabel { shield.primary = primaryLabel }
        var notification = shield.notification
        notification.summary = title
        continuation.yield(.shield(notification, subject: subject))
    }

    public func takeAnswers() -> [NotificationAnswer] {
        answers.withLock { answers in
            defer { answers = [] }
            return answers
        }
    }

    /// Shows what the loop queues until graceful shutdown; the notifier's own thread reports the buttons pressed.
    public func run() async {
        await withDiscardingTaskGroup { group in
            var notifier: DesktopNotifier?
            var retryAfter: ContinuousClock.Instant?
            for await request in requests.cancelOnGracefulShutdown() {
                if notifier == nil, retryAfter.map({ ContinuousClock.now >= $0 }) ?? true {
                    do {
                        let connected = try DesktopNotifier(address: address)
                        group.addTask { try? await connected.run() }
                        group.addTask { for await event in connected.events { self.handle(event) } }
                        notifier = connected
                    } catch {
                        logger.warning("cannot reach the session bus for notifications; retrying", metadata: ["error": "\(error)"])
                        retryAfter = .now + .seconds(10)
                    }
                }
                guard let connected = notifier else { continue }
                do throws(DaemonServiceError) {
                    switch request {
                    case .warning(let notification):
                        _ = try connected.notify(notification)
                    case .shield(let notification, let subject):
                        let id = try connected.notify(notification)
                        shields.withLock { $0[id] = subject }
                    }
                } catch {
                    logger.warning("notification not shown", metadata: ["error": "\(error)"])
                    if error.code == .busUnavailable { notifier = nil }
                }
            }
            group.cancelAll()
        }
    }

    private func handle(_ event: NotificationEvent) {
        switch event {
        case .actionInvoked(let id, let key):
            guard let subject = shields.withLock({ $0[id] }), let action = ShieldNotification.action(forKey: key) else {
                return
            }
            let answer = NotificationAnswer(user: user, subject: subject, choice: action == .close ? .close : .extraTime)
            answers.withLock { $0.append(answer) }
            answered?()
        case .closed(let id, _):
            shields.withLock { $0[id] = nil }
        }
    }
}
