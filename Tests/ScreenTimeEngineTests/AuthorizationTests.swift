import FamilyControls
import Testing

/// `AuthorizationCenter` keeps Apple's shape: request, status, revoke.
@Suite struct AuthorizationTests {
    @Test func aPersonLimitingThemselvesIsApproved() async throws {
        let center = AuthorizationCenter(connection: InProcessAuthorization())
        #expect(center.authorizationStatus == .notDetermined)
        try await center.requestAuthorization(for: .individual)
        #expect(center.authorizationStatus == .approved)
        try await center.revokeAuthorization()
        #expect(center.authorizationStatus == .denied)
    }

    /// A `switch` over Apple's cases, as code written for Apple's framework has: it compiles only while every case is
    /// there, and each says what went wrong in its own words.
    @Test func everyCaseOfApplesErrorIsThereAndSaysWhatWentWrong() {
        func handled(_ error: FamilyControlsError) -> String {
            switch error {
            case .restricted, .unavailable, .invalidAccountType, .invalidArgument, .authorizationConflict,
                .authorizationCanceled, .networkError, .authenticationMethodUnavailable, .unauthorized:
                error.description
            }
        }
        let all: [FamilyControlsError] = [
            .restricted, .unavailable, .invalidAccountType, .invalidArgument, .authorizationConflict,
            .authorizationCanceled, .networkError, .authenticationMethodUnavailable, .unauthorized,
        ]
        #expect(Set(all.map(handled)).count == all.count)
    }

    @Test func aChildNeedsAGuardian() async {
        let alone = AuthorizationCenter(connection: InProcessAuthorization())
        await #expect(throws: FamilyControlsError.restricted) { try await alone.requestAuthorization(for: .child) }
        #expect(alone.authorizationStatus == .notDetermined)

        let declined = AuthorizationCenter(connection: InProcessAuthorization(guardianApproves: { false }))
        await #expect(throws: FamilyControlsError.authorizationCanceled) {
            try await declined.requestAuthorization(for: .child)
        }
        #expect(declined.authorizationStatus == .denied)

        let approved = AuthorizationCenter(connection: InProcessAuthorization(guardianApproves: { true }))
        await #expect(throws: Never.self) { try await approved.requestAuthorization(for: .child) }
        #expect(approved.authorizationStatus == .approved)
    }

    @Test func appleSampleCodeCompiles() async {
        // As Apple's documentation writes it.
        // `shared` asks screentimed over D-Bus: approved when it runs, `.unavailable` when it doesn't.
        do {
            try await AuthorizationCenter.shared.requestAuthorization(for: .individual)
            #expect(AuthorizationCenter.shared.authorizationStatus == .approved)
        } catch {
            #expect((error as? FamilyControlsError) == .unavailable)
            #expect(AuthorizationCenter.shared.authorizationStatus == .notDetermined)
        }
    }
}
