import Foundation

/// A promotional offer of an auto-renewable subscription (the catalog file's `offers`): the offer
/// identifier set up in App Store Connect, and who may be offered it. Souk signs it for a person
/// who may (`POST /commerce/<app>/offers/signature`, docs/commerce.md "Promotional offers").
public struct SubscriptionOffer: Sendable, Hashable {
    /// Who may redeem an offer.
    public enum Eligibility: String, Sendable, Hashable, CaseIterable {
        /// Everyone signed in.
        case any
        /// Had a subscription of the product's group and has none active now: a win-back.
        case lapsed
        /// Never had a subscription of the product's group.
        case neverSubscribed = "never-subscribed"
    }

    /// The offer identifier of App Store Connect (`offerIdentifier` in what Souk signs).
    public var id: String
    public var eligibility: Eligibility

    public init(id: String, eligibility: Eligibility = .any) {
        self.id = id
        self.eligibility = eligibility
    }
}

/// Whether a person may be offered a subscription offer, from their granted purchases: a rule with
/// no I/O. Only the environments the person sees count, as for entitlements; a purchase counts
/// for its group whether its product is on sale or retired, and a refunded one still shows the
/// person subscribed once. "Active" is what `EntitlementEngine` says gives access now (a grace
/// period included).
public enum OfferEligibilityRule {
    /// Where a person stands with one subscription group.
    public enum GroupHistory: Sendable, Equatable {
        case neverSubscribed
        case lapsed
        case active
    }

    public static func history(in group: String, records: [PurchaseRecord], catalog: CommerceCatalogState,
                               environments: Set<CommerceEnvironment>, at now: Date) -> GroupHistory {
        let inGroup = records.filter { record in
            guard record.grantedEntitlement == nil, record.type == .autoRenewable, environments.contains(record.environment),
                  let product = catalog.product(record.productId) else { return false }
            return product.group == group
        }
        guard !inGroup.isEmpty else { return .neverSubscribed }
        let snapshot = EntitlementEngine.evaluate(inGroup, catalog: catalog, environments: environments, at: now)
        return snapshot.activePurchases.isEmpty ? .lapsed : .active
    }

    /// Whether `offer` of `product` is open to a person with `history` in the product's group.
    public static func admits(_ offer: SubscriptionOffer, history: GroupHistory) -> Bool {
        switch offer.eligibility {
        case .any: true
        case .lapsed: history == .lapsed
        case .neverSubscribed: history == .neverSubscribed
        }
    }
}
