import Foundation

/// Who a staff member may act on from the console (docs/web.md, "Roles"): only on an account of a
/// lower role than their own, never on their own account, and only through an action their role
/// has. Every console action on a person asks this one rule before it changes anything; a refusal
/// is answered 403 and audited.
public enum StaffScope {
    /// What the console does to a person.
    public enum Action: String, Sendable, CaseIterable {
        case resetPassword = "reset-password"
        case disable
        case enable
        /// A grant of one of an app's own entitlements.
        case grant
        /// A grant in the `marketplace` catalog: a membership, and so every app it includes.
        case grantMembership = "grant-membership"
        case revoke
        /// Revoking a `marketplace` grant.
        case revokeMembership = "revoke-membership"
        case refund
        case signOut = "sign-out"
        /// Asking the App Store to move the person's subscription renewal dates.
        case extendSubscriptions = "extend-subscriptions"

        /// The lowest role that may take the action at all.
        public var minimumRole: AccountRole {
            switch self {
            case .resetPassword, .grant, .revoke, .signOut: .support
            case .disable, .enable, .grantMembership, .revokeMembership, .refund, .extendSubscriptions: .operator
            }
        }

        /// The grant (or revocation) action for an entitlement of `app`.
        public static func grant(app: String) -> Action { app == AppPricing.marketplaceApp ? .grantMembership : .grant }
        public static func revoke(app: String) -> Action { app == AppPricing.marketplaceApp ? .revokeMembership : .revoke }
    }

    /// One side of a console action: an account and its role.
    public struct Party: Sendable, Equatable {
        public var id: UUID
        public var role: AccountRole

        public init(id: UUID, role: AccountRole) {
            self.id = id
            self.role = role
        }
    }

    public enum Verdict: Sendable, Equatable {
        case allowed
        /// Why, in words the staff member can act on.
        case refused(String)

        public var isAllowed: Bool { self == .allowed }
    }

    /// Whether `staff` may take `action` on `target`.
    public static func verdict(_ action: Action, by staff: Party, on target: Party) -> Verdict {
        guard staff.role.usesConsole else { return .refused("Only support and operators act on accounts.") }
        guard staff.role >= action.minimumRole else {
            return .refused("Only an operator may \(action.phrase); your role is \(staff.role.rawValue).")
        }
        guard staff.id != target.id else { return .refused("The console does not act on your own account (to \(action.phrase)).") }
        guard target.role < staff.role else {
            let lower = staff.role == .operator ? "customer and support accounts" : "customer accounts"
            return .refused("A \(staff.role.rawValue) account acts only on \(lower); this account's role is \(target.role.rawValue).")
        }
        return .allowed
    }
}

extension StaffScope.Action {
    /// The action in a sentence ("Only an operator may … ").
    var phrase: String {
        switch self {
        case .resetPassword: "reset a password"
        case .disable: "disable an account"
        case .enable: "enable an account"
        case .grant: "grant an entitlement"
        case .grantMembership: "grant a marketplace membership"
        case .revoke: "revoke a grant"
        case .revokeMembership: "revoke a marketplace membership"
        case .refund: "refund"
        case .signOut: "sign an account out"
        case .extendSubscriptions: "extend subscriptions"
        }
    }
}
