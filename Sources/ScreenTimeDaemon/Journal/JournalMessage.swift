import Logging

/// The journal's `MESSAGE_ID=` of the daemon's entries that a guardian or a tool looks for; each is explained in
/// `systemd/screentime.catalog` (`journalctl -x`, `journalctl MESSAGE_ID=…`).
///
/// The ids are fixed forever: tools select entries by them.
public enum JournalMessage: String, Sendable {
    /// A limit's warning time before its threshold was reached.
    case limitWarning = "f220f63c480946c38dd04b930b44fad9"
    /// A limit was reached: its apps are shielded.
    case limitReached = "dd421acccc4549e49a9f8263197a2513"
    /// A limit's new interval (a new day) began: its shield is released.
    case limitReset = "9903c693dbef4038873fa251dd57eeaf"
    /// A downtime began: everything but its allowed apps is shielded.
    case downtimeStarted = "6a16d5ee2bf748949a2dc286417159c7"
    /// A downtime ended: its shield is released.
    case downtimeEnded = "0a6fa49c412346559013e90b1e3fb403"
    /// An app resumed again and again while shielded is terminated.
    case shieldEscalated = "61ffc96f905a418db7722527176d9ef6"
    /// A policy file was refused; the previous policy stays in force.
    case policyRefused = "f4789abd80854b44863ad88db589d382"
    /// A limited user asked for more time.
    case timeRequested = "d97d22e9d30f46c282cf15e11f909bb4"
    /// A guardian approved or denied a request for more time.
    case timeRequestAnswered = "d15dda65a5174387bf7a42045901ae03"

    /// The metadata that gives a log record this id (the journal handler writes it as `MESSAGE_ID=`).
    public var metadata: Logger.Metadata { ["message_id": .string(rawValue)] }
}
