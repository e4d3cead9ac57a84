import Foundation

/// Where an account stands with a marketplace entitlement (a membership) at one moment.
public enum MembershipState: Sendable, Equatable {
    /// It opens the entitlement now.
    case active
    /// It had it (a purchase or grant that opened it has expired, lapsed or was refunded).
    case lapsed
    /// It never had it.
    case never
}

/// Whether a person may have a paid app.
public enum PaymentVerdict: String, Sendable, Equatable {
    case open
    /// Never bought, never a member: the problem type ending `purchase-required`.
    case purchaseRequired = "purchase-required"
    /// The membership that included the app lapsed: `subscription-expired`.
    case subscriptionExpired = "subscription-expired"
}

/// The one payment rule of licenses, restore, updates, renewals and the resolution page: a free
/// app is open to everyone; a paid one to its buyers; one included with a membership to its
/// members; an app both paid and included, to either.
public enum PaymentRule {
    /// `owned`: the account bought the app; `membership`: its state with the app's required entitlement
    /// (ignored when the app names none). Without an account (`owned` false, `membership` never),
    /// a paid app is `purchaseRequired`.
    public static func decide(_ pricing: AppPricing, owned: Bool, membership: MembershipState) -> PaymentVerdict {
        if pricing.isFree || owned { return .open }
        guard pricing.requiresEntitlement != nil else { return .purchaseRequired }
        switch membership {
        case .active: return .open
        case .lapsed: return .subscriptionExpired
        case .never: return .purchaseRequired
        }
    }

    /// What the person is told (the `failures` description and the problem detail).
    public static func description(_ verdict: PaymentVerdict, pricing: AppPricing) -> String {
        switch verdict {
        case .open: ""
        case .purchaseRequired where pricing.prices.isEmpty:
            "This app is included with a membership (\(pricing.requiresEntitlement ?? "")); become a member to install it."
        case .purchaseRequired: "This app costs \(pricing.summary); buy it to install it."
        case .subscriptionExpired: "The membership that included this app has lapsed; renew it to keep using the app."
        }
    }
}
