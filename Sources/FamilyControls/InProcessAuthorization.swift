import Synchronization

/// Authorization decided in this process, for programs that run the engine themselves and for tests.
///
/// A person may always limit themselves, so `.individual` is approved. `.child` needs a guardian, whom a process
/// alone cannot ask: it is approved only if `guardianApproves` says so, declined (`authorizationCanceled`) when it
/// says no, and `restricted` when there is no guardian to ask.
public final class InProcessAuthorization: AuthorizationConnection {
    private let status = Mutex(AuthorizationStatus.notDetermined)
    private let guardianApproves: (@Sendable () -> Bool)?

    /// Decides in process; `guardianApproves` answers for a guardian when `.child` is asked for.
    public init(guardianApproves: (@Sendable () -> Bool)? = nil) {
        self.guardianApproves = guardianApproves
    }

    /// The status after the last request or revocation; `.notDetermined` before any.
    public func authorizationStatus() -> AuthorizationStatus { status.withLock { $0 } }

    /// Approves `.individual`; asks the guardian for `.child`.
    public func requestAuthorization(for member: FamilyControlsMember) async throws(FamilyControlsError) {
        switch member {
        case .individual:
            status.withLock { $0 = .approved }
        case .child:
            guard let guardianApproves else { throw .restricted }
            let approved = guardianApproves()
            status.withLock { $0 = approved ? .approved : .denied }
            if !approved { throw .authorizationCanceled }
        }
    }

    /// Sets the status to `.denied`.
    public func revokeAuthorization() async throws(FamilyControlsError) {
        status.withLock { $0 = .denied }
    }
}
