/// Asks for, reports and withdraws the right to use Screen Time: Apple's `AuthorizationCenter`.
///
/// ```swift
/// try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
/// if AuthorizationCenter.shared.authorizationStatus == .approved { … }
/// ```
///
/// The decision is the connection's: the daemon's over D-Bus (`DaemonAuthorization`: a user limiting themselves is
/// approved; `.child` by a guardian's daemon for a user its policy covers), or `InProcessAuthorization` in tests.
public final class AuthorizationCenter: Sendable {
    /// The center of this process, asking `screentimed`.
    public static let shared = AuthorizationCenter(connection: DaemonAuthorization())

    private let connection: any AuthorizationConnection

    /// A center that asks `connection`.
    public init(connection: any AuthorizationConnection) { self.connection = connection }

    /// Whether this app is authorized now.
    public var authorizationStatus: AuthorizationStatus { connection.authorizationStatus() }

    /// Asks for authorization to manage `member`'s activity; returns once it is approved.
    ///
    /// - Throws: `FamilyControlsError` when it is declined or cannot be given.
    public func requestAuthorization(for member: FamilyControlsMember) async throws {
        try await connection.requestAuthorization(for: member)
    }

    /// Asks for authorization to manage the person's own activity (`.individual`, as on iOS 15);
    /// `completionHandler` gets the outcome.
    public func requestAuthorization(completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let connection = self.connection
        Task {
            do {
                try await connection.requestAuthorization(for: .individual)
                completionHandler(.success(()))
            } catch {
                completionHandler(.failure(error))
            }
        }
    }

    /// Withdraws this app's authorization; `completionHandler` gets the outcome.
    ///
    /// The status becomes `.denied`, and the daemon refuses the app's calls on its activities and stores until it asks
    /// for authorization again. What it set stays in force: its activities are monitored and its stores shield (clear
    /// them first, `stopMonitoring()` and `clearAllSettings()`, to lift them), so that giving up one's authorization
    /// is not a way around one's own limits.
    public func revokeAuthorization(completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let connection = self.connection
        Task {
            do {
                try await connection.revokeAuthorization()
                completionHandler(.success(()))
            } catch {
                completionHandler(.failure(error))
            }
        }
    }

    /// Withdraws this app's authorization; what it set stays in force (see `revokeAuthorization(completionHandler:)`).
    public func revokeAuthorization() async throws {
        try await connection.revokeAuthorization()
    }
}

/// Where authorization is decided: the daemon (over D-Bus) or this process.
public protocol AuthorizationConnection: Sendable {
    /// The current status.
    func authorizationStatus() -> AuthorizationStatus
    /// Asks for authorization for `member`; returns when approved, throws when not.
    func requestAuthorization(for member: FamilyControlsMember) async throws(FamilyControlsError)
    /// Withdraws authorization.
    func revokeAuthorization() async throws(FamilyControlsError)
}
