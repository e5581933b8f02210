import ScreenTimeBus
import ScreenTimeModel

/// Guardian mode's notifier: the daemon (root) shows nothing on anyone's desktop itself; it broadcasts each warning
/// and shield as `Daemon1.Notification(user, kind, limit, title, body, secondary)`, which the user's agent
/// (`screentime agent`, the user unit `screentime-agent.service`) shows. Buttons come back as
/// `Daemon1.AnswerShield` and `Daemon1.AskForTime` calls of that user, checked as any call is: an agent that lies
/// or is gone changes no shield.
final class BusNotifier: DaemonNotifier {
    /// The secondary button of a guardian's shield that offers no extra time of its own: the agent files a request.
    static let askLabel = "Ask for more time"

    private let queue: BusRequestQueue

    init(queue: BusRequestQueue) {
        self.queue = queue
    }

    func warn(user: UserID, title: String, body: String) {
        queue.emit(.notification(user: user, kind: "warning", limit: "", title: title, body: body, secondary: ""))
    }

    func shield(
        user: UserID, subject: ShieldSubject, title: String, body: String, primaryLabel: String?,
        secondaryLabel: String?
    ) {
        // Only the policy's limits are shown this way; a client's own shields stay with the client.
        guard case .limit(let limit) = subject else { return }
        queue.emit(
            .notification(
                user: user, kind: secondaryLabel == nil ? "shield-ask" : "shield", limit: limit, title: title,
                body: body,
                secondary: secondaryLabel ?? Self.askLabel))
    }

    /// Answers arrive as bus calls, not here.
    func takeAnswers() -> [NotificationAnswer] { [] }
}
