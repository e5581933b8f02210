import CLinux

extension StringProtocol {
    /// Whether `other` occurs in this text, byte for byte (UTF-8, `memmem(3)`): how paths and unit names are
    /// searched. Where Foundation is imported, `contains(_:)` of a string is its `range(of:)`, which compares Unicode
    /// characters through `NSString` and CoreFoundation's tables at each call. `other` holds no NUL.
    public func containsBytes(_ other: String) -> Bool {
        guard !other.isEmpty else { return true }
        func search(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            clinux_contains_bytes(bytes.baseAddress, bytes.count, other) != 0
        }
        // A text without contiguous UTF-8 is copied into an array (a copy as a `String` could be as discontiguous).
        return utf8.withContiguousStorageIfAvailable(search) ?? Array(utf8).withUnsafeBufferPointer(search)
    }
}
