/// Something the notification server reported about a notification this client showed.
public enum NotificationEvent: Hashable, Sendable {
    /// The user pressed the button whose key is `actionKey` (`ActionInvoked`).
    case actionInvoked(NotificationID, actionKey: String)
    /// The notification went away (`NotificationClosed`).
    case closed(NotificationID, reason: CloseReason)

    /// Why a notification closed, as the specification numbers it.
    public enum CloseReason: Hashable, Sendable {
        /// 1: it expired.
        case expired
        /// 2: the user dismissed it.
        case dismissed
        /// 3: `CloseNotification` was called.
        case closedByCall
        /// 4 and anything else: undefined or reserved.
        case other(UInt32)

        /// The reason for the number a server sent.
        public init(code: UInt32) {
            switch code {
            case 1: self = .expired
            case 2: self = .dismissed
            case 3: self = .closedByCall
            default: self = .other(code)
            }
        }
    }

    /// The notification the event is about.
    public var id: NotificationID {
        switch self {
        case .actionInvoked(let id, _), .closed(let id, _): id
        }
    }
}
