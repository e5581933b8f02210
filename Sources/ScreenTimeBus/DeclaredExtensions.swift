/// What `org.screentime.Catalog1.Extensions` answers, as JSON: the calling app's id as the daemon knows it, and the
/// extensions its desktop entry declares, by kind (`monitor`, `shieldConfiguration`, `shieldAction`, `report`) to
/// the executable's absolute path.
public struct DeclaredExtensions: Codable, Hashable, Sendable {
    /// The app the caller is (or, for an extension the daemon runs, the app that declared it).
    public var application: String
    /// Executables by kind; kinds the app does not declare are absent.
    public var extensions: [String: String]

    /// The declarations of `application`.
    public init(application: String, extensions: [String: String] = [:]) {
        self.application = application
        self.extensions = extensions
    }
}
