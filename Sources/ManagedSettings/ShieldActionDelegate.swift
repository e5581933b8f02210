import ScreenTimeModel

/// Answers the buttons of shields: Apple's `ShieldActionDelegate`. Subclass it and override the methods for what
/// your shields cover; the defaults close the app.
open class ShieldActionDelegate {
    public init() {}

    /// A button was pressed on the shield of an app.
    open func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void
    ) {
        completionHandler(.close)
    }

    /// A button was pressed on the shield of a web domain.
    open func handle(
        action: ShieldAction, for webDomain: WebDomainToken,
        completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void
    ) {
        completionHandler(.close)
    }

    /// A button was pressed on the shield of an app shielded through its category.
    open func handle(
        action: ShieldAction, for category: ActivityCategoryToken,
        completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void
    ) {
        completionHandler(.close)
    }
}

/// Says how shields look: Apple's `ShieldConfigurationDataSource`. Subclass it and override the methods; the
/// defaults give the system's shield.
open class ShieldConfigurationDataSource {
    public init() {}

    /// The look of the shield over an app.
    open func configuration(shielding application: ApplicationToken) -> ShieldConfiguration { ShieldConfiguration() }

    /// The look of the shield over an app shielded through its category.
    open func configuration(shielding application: ApplicationToken, in category: ActivityCategoryToken)
        -> ShieldConfiguration
    {
        ShieldConfiguration()
    }

    /// The look of the shield over a web domain.
    open func configuration(shielding webDomain: WebDomainToken) -> ShieldConfiguration { ShieldConfiguration() }
}
