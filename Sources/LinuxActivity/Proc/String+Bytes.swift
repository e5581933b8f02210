import CLinux

extension StringProtocol {
    /// Whether `other` occurs in this text, byte for byte (UTF-8, `memmem(3)`): how paths and unit names are
    /// searched. Where Foundation is imported, `contains(_:)` of a string is its `range(of:)`, which compares Unicode
    /// characters through `NSString` and CoreFoundation's tables at each call. `other` holds no NUL.
    public func containsBytes(_ other: String) -> Bool {
        guard !other.isEmpty else { return true }
        return utf8.withContiguousStorageIfAvailable { clinux_contains_bytes($0.baseAddress, $0.count, other) != 0 }
            ?? String(self).containsBytes(other)
    }
}
