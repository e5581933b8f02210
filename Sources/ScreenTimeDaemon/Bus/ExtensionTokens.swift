import Synchronization

/// The secrets the daemon gives the extensions it runs for a client, so that their calls reach that client's
/// namespace: each run gets a fresh token in `SCREENTIME_EXTENSION_TOKEN`, valid until the run ends. The bus reads
/// it from the caller's initial environment (`/proc/PID/environ`, readable only by the same user or root), so the
/// API itself carries no token and an extension needs no code of its own to be known.
public final class ExtensionTokens: Sendable {
    /// The environment variable an extension's token is in.
    public static let variable = "SCREENTIME_EXTENSION_TOKEN"

    private let clients = Mutex<[String: BusClient]>([:])

    /// An empty set of tokens.
    public init() {}

    /// A new token for a run of one of `client`'s extensions: 128 random bits as hexadecimal.
    public func issue(for client: BusClient) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
        clients.withLock { $0[token] = client }
        return token
    }

    /// Ends a token: its run is over.
    public func revoke(_ token: String) {
        _ = clients.withLock { $0.removeValue(forKey: token) }
    }

    /// The client a live token was issued for.
    public func client(for token: String) -> BusClient? {
        clients.withLock { $0[token] }
    }
}
