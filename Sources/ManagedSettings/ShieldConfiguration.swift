/// How a shield looks: Apple's `ShieldConfiguration`, with Linux's notification in mind (title, body, icon name,
/// two buttons).
public struct ShieldConfiguration: Hashable, Sendable, Codable {
    /// A text and its color.
    public struct Label: Hashable, Sendable, Codable {
        public var text: String
        public var color: Color?
        public init(text: String, color: Color? = nil) {
            self.text = text
            self.color = color
        }
    }

    /// An sRGB color with alpha, each component 0…1.
    public struct Color: Hashable, Sendable, Codable {
        public var red: Double
        public var green: Double
        public var blue: Double
        public var alpha: Double
        public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
    }

    public var backgroundColor: Color?
    /// A freedesktop icon name (`"org.example.Game"`, `"dialog-warning"`) or an absolute path to an image.
    public var icon: String?
    public var title: Label?
    public var subtitle: Label?
    public var primaryButtonLabel: Label?
    public var primaryButtonBackgroundColor: Color?
    public var secondaryButtonLabel: Label?

    public init(
        backgroundColor: Color? = nil, icon: String? = nil, title: Label? = nil, subtitle: Label? = nil,
        primaryButtonLabel: Label? = nil, primaryButtonBackgroundColor: Color? = nil,
        secondaryButtonLabel: Label? = nil
    ) {
        self.backgroundColor = backgroundColor
        self.icon = icon
        self.title = title
        self.subtitle = subtitle
        self.primaryButtonLabel = primaryButtonLabel
        self.primaryButtonBackgroundColor = primaryButtonBackgroundColor
        self.secondaryButtonLabel = secondaryButtonLabel
    }
}
