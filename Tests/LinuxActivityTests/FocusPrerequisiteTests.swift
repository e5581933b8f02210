import Testing

/// Under CI every focus suite must run: a missing X server, compositor or privilege is a failure there, not a skip.
@Suite struct FocusPrerequisiteTests {
    @Test func underCIEveryFocusSuiteCanRun() {
        guard FocusTestEnvironment.isCI else { return }
        for reason in FocusTestEnvironment.skipReasons {
            Issue.record("a focus suite cannot run under CI: \(reason)")
        }
    }
}
