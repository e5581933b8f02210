import ScreenTimeBus
import ScreenTimeModel

/// An app, by its identity: Apple's `Application`. `Application(bundleIdentifier:)` asks `screentimed`'s catalog
/// (`org.screentime.Catalog1.Application`) for the app's token and name, so that an app can shield or count another
/// app it knows by id (`org.mozilla.firefox`, a desktop entry's id, or an executable's name).
public struct Application: Hashable, Sendable, Codable {
    /// The app's id, as given.
    public var bundleIdentifier: String?
    /// The app's token, which shields and events use; nil when the daemon could not be asked.
    public var token: ApplicationToken?
    /// The app's name in the user's language (its desktop entry's `Name`); nil when unknown.
    public var localizedDisplayName: String?

    /// The app `bundleIdentifier`, with its token and name from the daemon reached by `connection`.
    public init(bundleIdentifier: String, connection: DaemonConnection = .shared) {
        self.bundleIdentifier = bundleIdentifier
        struct Label: Decodable {
            var name: String
            var token: ApplicationToken
        }
        let label = try? BusJSON.decode(
            Label.self,
            from: try connection.callForString(.catalog, "Application", [.string(bundleIdentifier)]))
        token = label?.token
        localizedDisplayName = label?.name
    }

    /// An app known only by its token (from a `FamilyActivitySelection`).
    public init(token: ApplicationToken) {
        self.token = token
    }
}
