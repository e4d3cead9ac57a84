/// What an account may do beyond its own purchases, in order: a `customer` buys and installs, `support`
/// helps customers, an `operator` runs the marketplace (docs/web.md, "Roles").
public enum AccountRole: String, Sendable, CaseIterable, Comparable {
    /// A person who buys and installs; no console.
    case customer
    /// Looks at everything; grants an app's own entitlements to customers, sends them reset links, signs them out.
    case support
    /// Everything support may, and changes the catalog, packages, takedowns, refunds, keys and accounts.
    case `operator`

    /// Whether the role opens `/admin`.
    public var usesConsole: Bool { self != .customer }

    /// customer < support < operator.
    public var rank: Int {
        switch self {
        case .customer: 0
        case .support: 1
        case .operator: 2
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
