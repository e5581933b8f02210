import Foundation
import ScreenTimeModel

/// The declarative policy a person writes by hand in `$XDG_CONFIG_HOME/screentime/policy.toml`: daily limits,
/// downtimes, apps that are always allowed, and how shields look and offer more time.
public struct Policy: Hashable, Sendable {
    /// A daily time limit on some apps and categories.
    public struct Limit: Hashable, Sendable {
        /// What happens when the limit is reached.
        public enum Shield: Hashable, Sendable {
            /// The apps are frozen until the limit resets or more time is given.
            case freeze
            /// The apps are asked to quit (`SIGTERM`), then killed after `grace`.
            case terminate(grace: Duration)
        }

        /// The limit's name, unique in the file; extra time is granted per name.
        public var name: String
        /// Apps counted, by desktop-entry id or executable file name.
        public var applications: [AppID]
        /// Categories counted. With no apps and no categories, all use counts (Apple's empty selection).
        public var categories: [ActivityCategory]
        /// Use allowed per day; for a limit by weekday, the largest day's.
        public var daily: Duration
        /// Use allowed on each weekday when it differs by day (`daily = { weekdays = "1h", weekend = "3h" }`); a day
        /// missing has no limit. nil when `daily` holds every day.
        public var dailyByWeekday: [Weekday: Duration]?
        /// How long before the limit to warn; nil for no warning.
        public var warning: Duration?
        /// What happens at the limit.
        public var shield: Shield
        /// A per-schedule limit counts only from `start` to `end` each day (and resets at `start`); nil for a daily
        /// limit, which runs from midnight to midnight.
        public var window: (start: TimeOfDay, end: TimeOfDay)? {
            get { windowStart.flatMap { start in windowEnd.map { (start, $0) } } }
            set {
                windowStart = newValue?.start
                windowEnd = newValue?.end
            }
        }
        var windowStart: TimeOfDay?
        var windowEnd: TimeOfDay?
        /// A monitor extension run for each of the limit's callbacks (an absolute path), or nil.
        public var extensionPath: String?

        /// Creates a limit; `window` makes it per-schedule instead of daily; `dailyByWeekday` makes it differ by
        /// day (then `daily` is ignored and set to the largest day's).
        public init(
            name: String, applications: [AppID], categories: [ActivityCategory], daily: Duration, warning: Duration?,
            shield: Shield, window: (start: TimeOfDay, end: TimeOfDay)? = nil, extensionPath: String? = nil,
            dailyByWeekday: [Weekday: Duration]? = nil
        ) {
            self.extensionPath = extensionPath
            self.dailyByWeekday = dailyByWeekday
            self.name = name
            self.applications = applications
            self.categories = categories
            self.daily = dailyByWeekday?.values.max() ?? daily
            self.warning = warning
            self.shield = shield
            self.windowStart = window?.start
            self.windowEnd = window?.end
        }
    }

    /// A time of day, in local time.
    public struct TimeOfDay: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// 0…23.
        public var hour: Int
        /// 0…59.
        public var minute: Int
        /// 0…59; written only when not zero (`HH:MM:SS`).
        public var second: Int

        /// Creates a time of day.
        public init(hour: Int, minute: Int, second: Int = 0) {
            self.hour = hour
            self.minute = minute
            self.second = second
        }

        /// Orders by hour, minute, second.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.hour, lhs.minute, lhs.second) < (rhs.hour, rhs.minute, rhs.second)
        }
        /// `HH:MM`, or `HH:MM:SS` when the seconds are not zero.
        public var description: String {
            let pad = { (value: Int) in (value < 10 ? "0" : "") + "\(value)" }
            return pad(hour) + ":" + pad(minute) + (second == 0 ? "" : ":" + pad(second))
        }
    }

    /// A daily span of time in which only allowed apps may be used.
    public struct Downtime: Hashable, Sendable {
        /// The downtime's name, unique in the file.
        public var name: String
        /// When it begins each day.
        public var start: TimeOfDay
        /// When it ends; earlier than `start` means the next day (`21:30` to `07:00`).
        public var end: TimeOfDay
        /// Apps usable during the downtime, besides `Policy.alwaysAllowed`.
        public var allowed: [AppID]
        /// When it begins and ends on each weekday, when that differs by day or the downtime keeps to some days
        /// (`days = ["fri", "sat"]`); a day missing has no downtime. nil when `start`–`end` holds every day.
        public var spansByWeekday: [Weekday: Span]?
        /// A monitor extension run when the downtime starts and ends (an absolute path), or nil.
        public var extensionPath: String?

        /// Creates a downtime; `spansByWeekday` makes it differ by day (then `start` and `end` are ignored and set
        /// to the first day's, Monday first).
        public init(
            name: String, start: TimeOfDay, end: TimeOfDay, allowed: [AppID], extensionPath: String? = nil,
            spansByWeekday: [Weekday: Span]? = nil
        ) {
            self.name = name
            let first = spansByWeekday.flatMap { spans in Weekday.mondayFirst.lazy.compactMap { spans[$0] }.first }
            self.start = first?.start ?? start
            self.end = first?.end ?? end
            self.spansByWeekday = spansByWeekday
            self.allowed = allowed
            self.extensionPath = extensionPath
        }

        /// Whether the span crosses midnight.
        public var crossesMidnight: Bool { end < start }
    }

    /// A downtime's span on one day.
    public struct Span: Hashable, Sendable {
        /// When it begins.
        public var start: TimeOfDay
        /// When it ends; earlier than `start` means the next day.
        public var end: TimeOfDay

        /// Creates a span.
        public init(start: TimeOfDay, end: TimeOfDay) {
            self.start = start
            self.end = end
        }
    }

    /// A day of the week, numbered as Foundation's Gregorian calendar and `CalendarPattern.weekday` do.
    public enum Weekday: Int, Hashable, Sendable, CaseIterable, Comparable {
        case sunday = 1, monday, tuesday, wednesday, thursday, friday, saturday

        /// The days in the order policies write them, Monday to Sunday.
        public static let mondayFirst: [Weekday] = [
            .monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday,
        ]

        /// The three-letter name a policy uses: `mon` … `sun`.
        public var abbreviation: String {
            ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][rawValue - 1]
        }

        /// Orders Monday first, Sunday last.
        public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.rawValue + 5) % 7 < (rhs.rawValue + 5) % 7 }
    }

    /// How shields look and how much more time they may offer.
    public struct ShieldSettings: Hashable, Sendable {
        /// Text shown on the shield; nil for the default text.
        public var message: String?
        /// Time the shield's "more time" button gives; nil for no button.
        public var extraTime: Duration?
        /// How many times a day more time may be taken.
        public var extraTimesPerDay: Int

        /// No message, no extra time.
        public init(message: String? = nil, extraTime: Duration? = nil, extraTimesPerDay: Int = 0) {
            self.message = message
            self.extraTime = extraTime
            self.extraTimesPerDay = extraTimesPerDay
        }
    }

    /// Apps never limited nor blocked by downtime.
    public var alwaysAllowed: [AppID]
    /// Daily limits, in file order.
    public var limits: [Limit]
    /// Downtimes, in file order.
    public var downtimes: [Downtime]
    /// Shield settings.
    public var shield: ShieldSettings
    /// Users a guardian's default policy leaves alone, by name (`exempt = ["parent"]`); read only from
    /// `/etc/screentime/default.toml`.
    public var exempt: [String] = []

    /// Which file a policy is read from: a person's own, or a guardian's default or per-user one. `exempt` is
    /// accepted only in the guardian's default policy.
    public enum Role: Sendable {
        case individual, guardianDefault, guardianUser
    }

    /// The default `SIGTERM`-to-`SIGKILL` grace period of `shield = "terminate"`.
    public static let defaultTerminateGrace = Duration.seconds(10)

    /// Where the policy file lives: `$XDG_CONFIG_HOME/screentime/policy.toml`, or `~/.config/…` when
    /// `XDG_CONFIG_HOME` is unset or not absolute (as the XDG base-directory specification says).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var base = environment["XDG_CONFIG_HOME"] ?? ""
        if !base.hasPrefix("/") { base = (environment["HOME"] ?? NSHomeDirectory()) + "/.config" }
        return base + "/screentime/policy.toml"
    }

    /// The guardian's policy for every user: `/etc/screentime/default.toml`.
    public static let systemDefaultPath = "/etc/screentime/default.toml"

    /// Where earlier versions read the guardian's policy; still read when `systemDefaultPath` does not exist.
    public static let legacySystemPath = "/etc/screentime/policy.toml"

    /// The guardian's policy file: `systemDefaultPath`, or `legacySystemPath` while only that one exists.
    public static func systemPath(fileExists: (String) -> Bool = { !Policy.nothing(at: $0) }) -> String {
        !fileExists(systemDefaultPath) && fileExists(legacySystemPath) ? legacySystemPath : systemDefaultPath
    }

    /// Reads and parses the policy file at `path`.
    ///
    /// - Throws: `PolicyError` with every mistake in the file (positioned at line 1 column 1 when the file cannot be
    ///   read).
    public static func load(from path: String, role: Role = .individual) throws(PolicyError) -> Policy {
        try diagnose(fileAt: path, role: role).get()
    }

    /// Parses a policy from TOML text; `file` names it in errors.
    ///
    /// - Throws: `PolicyError` with every mistake in the text.
    public static func parse(_ text: String, file: String = "policy.toml") throws(PolicyError) -> Policy {
        try diagnose(text, file: file).get()
    }
}
