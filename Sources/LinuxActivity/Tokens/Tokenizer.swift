import CGcrypt
import Glibc
import ScreenTimeModel
import SystemPackage

/// Derives opaque, stable tokens from app ids, categories and web domains with HMAC-SHA256 under the
/// installation's secret key. The same id always gives the same token; without the key a token reveals nothing.
public struct Tokenizer: Sendable {
    /// The secret key (32 random bytes).
    let key: [UInt8]

    /// A tokenizer with an explicit key (tests, benchmarks).
    public init(key: [UInt8]) {
        precondition(!key.isEmpty, "an empty HMAC key makes tokens guessable")
        self.key = key
    }

    /// The token of an app.
    public func token(for app: AppID) -> ApplicationToken { ApplicationToken(rawValue: mac("app\u{0}" + app.rawValue)) }

    /// The token of a category.
    public func token(for category: ActivityCategory) -> ActivityCategoryToken {
        ActivityCategoryToken(rawValue: mac("category\u{0}" + category.rawValue))
    }

    /// The token of a web domain (lowercased).
    public func token(forWebDomain domain: String) -> WebDomainToken {
        WebDomainToken(rawValue: mac("domain\u{0}" + domain.lowercased()))
    }

    /// HMAC-SHA256 of the text, as the first 128 bits in lowercase hex. The C function is `gcry_md_hash_buffers`
    /// with `GCRY_MD_FLAG_HMAC` (libgcrypt, which libsystemd loads anyway).
    private func mac(_ text: String) -> String {
        _ = Self.libgcryptReady
        var digest = [UInt8](repeating: 0, count: 32)
        var message = Array(text.utf8)
        var key = key
        let status = key.withUnsafeMutableBytes { keyBytes in
            message.withUnsafeMutableBytes { messageBytes in
                // The first buffer is the key, the rest the message.
                var buffers = [
                    gcry_buffer_t(size: keyBytes.count, off: 0, len: keyBytes.count, data: keyBytes.baseAddress),
                    gcry_buffer_t(size: messageBytes.count, off: 0, len: messageBytes.count, data: messageBytes.baseAddress),
                ]
                return gcry_md_hash_buffers(Int32(GCRY_MD_SHA256.rawValue), UInt32(GCRY_MD_FLAG_HMAC.rawValue), &digest, &buffers, 2)
            }
        }
        precondition(status == 0, "HMAC-SHA256 failed in libgcrypt (error \(status))")
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var result = [UInt8]()
        result.reserveCapacity(32)
        for byte in digest.prefix(16) {
            result.append(hex[Int(byte >> 4)])
            result.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: result, as: UTF8.self)
    }
}

extension Tokenizer {
    /// Where the key lives: `/var/lib/screentime/token.key` for the system service, else
    /// `$XDG_STATE_HOME/screentime/token.key` (default `~/.local/state/screentime/token.key`).
    public static func defaultKeyPath(system: Bool, environment: [String: String]) -> String {
        if system { return "/var/lib/screentime/token.key" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/screentime/token.key" }
        let home = environment["HOME"] ?? "/root"
        return home + "/.local/state/screentime/token.key"
    }

    /// libgcrypt wants its version checked once before first use.
    private static let libgcryptReady: Bool = gcry_check_version(nil) != nil

    /// Loads the key at `path`, creating it (32 bytes from `gcry_randomize`, long-term key quality, mode 0600, parent directories 0700) on
    /// first use. Refuses a key file that others can read: the tokens would no longer be opaque to them.
    public static func loadOrCreate(keyAt path: String) throws(LinuxActivityError) -> Tokenizer {
        if let tokenizer = try load(path) { return tokenizer }
        try makeDirectories(for: path)
        var key = [UInt8](repeating: 0, count: 32)
        _ = libgcryptReady
        gcry_randomize(&key, key.count, GCRY_VERY_STRONG_RANDOM)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            // Another process created it first: use theirs.
            if errno == EEXIST, let tokenizer = try load(path) { return tokenizer }
            throw LinuxActivityError(.tokenKey, "cannot create token key \(path)", errno: Errno(rawValue: errno))
        }
        defer { close(descriptor) }
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == key.count, fsync(descriptor) == 0 else {
            unlink(path)
            throw LinuxActivityError(.tokenKey, "cannot write token key \(path)", errno: Errno(rawValue: errno))
        }
        return Tokenizer(key: key)
    }

    private static func load(_ path: String) throws(LinuxActivityError) -> Tokenizer? {
        guard let status = FileSystem.status(path) else { return nil }
        if status.st_mode & 0o077 != 0 {
            throw LinuxActivityError(
                .tokenKey,
                "token key \(path) is readable by others (mode \(String(status.st_mode & 0o777, radix: 8))); "
                    + "run: chmod 600 \(path)")
        }
        guard let bytes = FileSystem.readBytes(path), bytes.count >= 16 else {
            throw LinuxActivityError(
                .tokenKey, "token key \(path) is unreadable or shorter than 16 bytes; move it away to make a new one "
                    + "(tokens will change)")
        }
        return Tokenizer(key: bytes)
    }

    private static func makeDirectories(for path: String) throws(LinuxActivityError) {
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw LinuxActivityError(.tokenKey, "cannot create directory \(prefix)", errno: Errno(rawValue: errno))
            }
        }
    }
}
