import ScreenTimeModel

/// A node of sway's layout tree (`get_tree`, and the `container` of `window` events), reduced to the fields
/// focus tracking reads.
struct SwayNode: Decodable, Sendable {
    /// The node's id (`con_id`).
    var id: Int
    /// `root`, `output`, `workspace`, `con` or `floating_con`.
    var type: String?
    /// Whether this node has the keyboard focus.
    var focused: Bool?
    /// The pid of the client owning the view, for views.
    var pid: Int32?
    /// The Wayland `app_id` (native Wayland views).
    var appID: String?
    /// X11 properties (XWayland views).
    var windowProperties: WindowProperties?
    /// Whether the view currently inhibits idle (an idle-inhibit protocol object, or a `inhibit_idle` rule).
    var inhibitIdle: Bool?
    /// Tiled children.
    var nodes: [SwayNode]?
    /// Floating children.
    var floatingNodes: [SwayNode]?

    /// `WM_CLASS` and instance of an XWayland view.
    struct WindowProperties: Decodable, Sendable {
        var `class`: String?
        var instance: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, type, focused, pid, nodes
        case appID = "app_id"
        case windowProperties = "window_properties"
        case inhibitIdle = "inhibit_idle"
        case floatingNodes = "floating_nodes"
    }

    private var children: [SwayNode] { (nodes ?? []) + (floatingNodes ?? []) }

    /// Whether the node is a view (an application window): only views carry a `pid`.
    var isView: Bool { pid != nil }

    /// The focused node in this subtree.
    func focusedNode() -> SwayNode? {
        if focused == true { return self }
        for child in children {
            if let node = child.focusedNode() { return node }
        }
        return nil
    }

    /// Whether any view in this subtree inhibits idle.
    func anyInhibitsIdle() -> Bool {
        if inhibitIdle == true { return true }
        return children.contains { $0.anyInhibitsIdle() }
    }

    /// The view as a focused window: `app_id` for Wayland views, `WM_CLASS` class (or instance) for XWayland.
    var focusedWindow: FocusedWindow? {
        guard isView else { return nil }
        let xClass = windowProperties.flatMap { properties in
            properties.class?.isEmpty == false ? properties.class : properties.instance
        }
        let windowClass = appID?.isEmpty == false ? appID : xClass
        return FocusedWindow(pid: pid.flatMap { $0 > 0 ? ProcessID($0) : nil }, windowClass: windowClass)
    }
}

/// The payload of a sway `window` event.
struct SwayWindowEvent: Decodable, Sendable {
    /// `new`, `close`, `focus`, `title`, `fullscreen_mode`, `move`, `floating`, `urgent`, `mark`.
    var change: String
    /// The view concerned.
    var container: SwayNode
}

/// The payload of a sway `workspace` event.
struct SwayWorkspaceEvent: Decodable, Sendable {
    /// `init`, `empty`, `focus`, `move`, `rename`, `urgent`, `reload`.
    var change: String
}
