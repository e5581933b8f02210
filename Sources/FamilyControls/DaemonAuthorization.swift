import ScreenTimeBus

/// Authorization decided by `screentimed`, over D-Bus (`org.screentime.Authorization1`): what
/// `AuthorizationCenter.shared` asks in production. The daemon knows the app from the calling process, so the
/// answer is this app's.
public final class DaemonAuthorization: AuthorizationConnection {
    private let connection: DaemonConnection

    /// Asks the daemon `connection` reaches (by default the user's own on the session bus, else a guardian's).
    public init(connection: DaemonConnection = .shared) { self.connection = connection }

    /// The daemon's record for this app; `.notDetermined` when the daemon can't be reached.
    public func authorizationStatus() -> AuthorizationStatus {
        (try? connection.callForString(.authorization, "AuthorizationStatus")).flatMap(AuthorizationStatus.init(rawValue:))
            ?? .notDetermined
    }

    /// Asks the daemon; `.individual` is approved; `.child` is approved by a guardian's daemon for a user its policy
    /// covers, and refused with `.restricted` by a user's own daemon.
    public func requestAuthorization(for member: FamilyControlsMember) async throws(FamilyControlsError) {
        do {
            let status = try connection.callForString(.authorization, "RequestAuthorization", [.string(member.rawValue)])
            guard status == AuthorizationStatus.approved.rawValue else { throw FamilyControlsError.authorizationCanceled }
        } catch let error as FamilyControlsError {
            throw error
        } catch let error as ScreenTimeBusError {
            throw FamilyControlsError(error)
        } catch {
            throw .unavailable
        }
    }

    /// Tells the daemon to withdraw this app's authorization.
    public func revokeAuthorization() async throws(FamilyControlsError) {
        do { _ = try connection.call(.authorization, "RevokeAuthorization") } catch { throw FamilyControlsError(error) }
    }
}

extension FamilyControlsError {
    /// The authorization error a refusal of the daemon stands for.
    init(_ error: ScreenTimeBusError) {
        switch error.code {
        case .guardianModeUnavailable: self = .restricted
        case .invalidArgument: self = .invalidArgument
        case .notAuthorized: self = .authorizationCanceled
        default: self = .unavailable
        }
    }
}
