import Foundation
import Glibc
import LinuxActivity
import Logging
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// Extensions declared by apps: who they run as, and how their calls are tied to the declaring app.
@Suite("Client extensions") struct ClientExtensionTests {
    @Test("an extension is never run as root, whoever the daemon is")
    func neverAsRoot() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "monitor", "id -u")
        let runner = ExtensionRunner(logger: Logger(label: "test.client-extensions"))
        let refused = await runner.run(
            executable: script, arguments: [], environment: [:], user: UserID(0), label: "monitor")
        guard case .failedToStart(let error) = refused.termination else {
            Issue.record("ran as root: \(refused)")
            return
        }
        #expect(error.message.contains("never run as root"))
        // Named for no user: the daemon's own account, or nobody when the daemon is root.
        let own = await runner.run(executable: script, arguments: [], environment: [:], label: "monitor")
        #expect(own.output.map(\.text) == [getuid() == 0 ? "65534" : "\(getuid())"])
    }

    @Test("a token issued for a run names its client until it is revoked, and is read from the caller's environment")
    func tokens() throws {
        let tokens = ExtensionTokens()
        let client = BusClient(user: UserID(getuid()), app: AppID("org.example.Homework"))
        let token = tokens.issue(for: client)
        #expect(token.count == 32 && token != tokens.issue(for: client))
        #expect(tokens.client(for: token) == client)
        let child = try TestChild(
            "/bin/sleep", ["5"], standardOutput: "/dev/null",
            environment: ["PATH=/bin", "\(ExtensionTokens.variable)=\(token)"])
        defer { child.kill() }
        let caller = try #require(
            CallerProcess(BusCredentials(user: UserID(getuid()), process: ProcessID(rawValue: child.pid))))
        // Until the child's execve is done, /proc shows the parent's environment.
        let read = eventually(timeout: .seconds(5)) { caller.initialEnvironmentValue(ExtensionTokens.variable) }
        #expect(read == token)
        #expect(caller.initialEnvironmentValue("HOME") == nil)
        tokens.revoke(token)
        #expect(tokens.client(for: token) == nil)
    }
}
