extension StringProtocol {
    /// Whether `other` occurs in this text, byte for byte (UTF-8): how paths and unit names are searched. Where
    /// Foundation is imported, `contains(_:)` of a string is its `range(of:)`, which compares Unicode characters
    /// through `NSString` and CoreFoundation's tables, for each call.
    public func containsBytes(_ other: some StringProtocol) -> Bool {
        utf8.firstRange(of: other.utf8) != nil
    }
}
