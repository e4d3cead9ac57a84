import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `GET /commerce/<app>/customer`: what the signed-in person has in the app, in
/// one answer — what RevenueCat's `GET /subscribers/{id}` tells its SDKs, in Souk's own shape:
/// `{"account", "entitlements", "purchases"}`.
///
/// Every field is written, `null` when it has no value, so a client decodes one shape. Dates are
/// RFC 3339 in UTC, whole seconds. Only the environments the account sees are listed (a sandbox
/// account: Sandbox only), exactly as the entitlement answers count them.
struct CustomerDocument: Encodable, Equatable {
    var account: Account
    /// The entitlements open now, by id.
    var entitlements: [Entitlement]
    /// Every purchase of the person in the app (consumables included), oldest first; refused
    /// claims are not purchases and are left out.
    var purchases: [Purchase]

    /// `{"id", "email", "sandbox", "accountToken"}`: whose answer this is, with the account token the
    /// app passes to its store with every purchase (`GET /commerce/<app>/account-token`).
    struct Account: Encodable, Equatable {
        var id: String
        var email: String
        var sandbox: Bool
        var accountToken: String
    }

    /// One open entitlement and the purchase (or grant) it comes from — the one that lasts longest.
    struct Entitlement: Encodable, Equatable {
        var id: String
        /// The product bought; `null` for a promotional grant.
        var productId: String?
        /// `apple_store`, `google_play`, `amazon`, `roku`, or `promotional` for a grant.
        var store: String?
        var environment: String
        var startedAt: String
        /// When access ends (grace period and revocation included); `null`: it does not end.
        var expiresAt: String?
        /// Whether the store will renew it; `false` for a grant, `null` when the store says nothing
        /// (one-time purchases).
        var willRenew: Bool?
        /// `normal`, `trial`, `intro` or `promotional` (a grant is `promotional`).
        var periodType: String
        /// The purchase's payment id, or the grant's id.
        var paymentId: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(productId, forKey: .productId)
            try container.encode(store, forKey: .store)
            try container.encode(environment, forKey: .environment)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(expiresAt, forKey: .expiresAt)
            try container.encode(willRenew, forKey: .willRenew)
            try container.encode(periodType, forKey: .periodType)
            try container.encode(paymentId, forKey: .paymentId)
        }

        enum CodingKeys: String, CodingKey {
            case id, productId, store, environment, startedAt, expiresAt, willRenew, periodType, paymentId
        }
    }

    /// One purchase as Souk recorded it.
    struct Purchase: Encodable, Equatable {
        var paymentId: String
        var productId: String
        var store: String
        /// `consumable`, `non-consumable`, `auto-renewable`, `non-renewing`.
        var type: String
        /// `false` marks the non-subscription purchases (consumables and non-consumables).
        var subscription: Bool
        /// `granted` (verified by its store) or `pending` (the store has not answered yet).
        var status: String
        /// Whether it gives access now (never for a consumable: those are balances).
        var active: Bool
        /// `Production` or `Sandbox`; `null` while pending.
        var environment: String?
        var purchaseDate: String?
        /// The store's expiry (auto-renewable); `null` for purchases that do not expire by themselves.
        var expiresDate: String?
        var revokedAt: String?
        var willRenew: Bool?
        /// A subscription's period type (`normal` when the store said nothing); `null` for one-time purchases.
        var periodType: String?
        /// Where a subscription stands in its store (`active`, `cancelled`, `grace_period`,
        /// `billing_retry`, `paused`, `expired`, `revoked`); `null` when the store said nothing more.
        var subscriptionState: String?
        var quantity: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(paymentId, forKey: .paymentId)
            try container.encode(productId, forKey: .productId)
            try container.encode(store, forKey: .store)
            try container.encode(type, forKey: .type)
            try container.encode(subscription, forKey: .subscription)
            try container.encode(status, forKey: .status)
            try container.encode(active, forKey: .active)
            try container.encode(environment, forKey: .environment)
            try container.encode(purchaseDate, forKey: .purchaseDate)
            try container.encode(expiresDate, forKey: .expiresDate)
            try container.encode(revokedAt, forKey: .revokedAt)
            try container.encode(willRenew, forKey: .willRenew)
            try container.encode(periodType, forKey: .periodType)
            try container.encode(subscriptionState, forKey: .subscriptionState)
            try container.encode(quantity, forKey: .quantity)
        }

        enum CodingKeys: String, CodingKey {
            case paymentId, productId, store, type, subscription, status, active, environment, purchaseDate, expiresDate, revokedAt
            case willRenew, periodType, subscriptionState, quantity
        }
    }
}

extension CustomerDocument {
    /// The document of `buyer`: `snapshot` is their entitlements now, `purchases` every purchase
    /// they made in the app; `environments` those the account sees.
    init(buyer: PurchaseIntakeService.Buyer, accountToken: UUID, snapshot: EntitlementSnapshot, purchases: [StoredPurchase],
         environments: Set<CommerceEnvironment>) {
        let shown = purchases.filter { purchase in
            switch purchase.status {
            case .refused: false
            case .pending: true
            case .granted: purchase.environment.map(environments.contains) ?? false
            }
        }
        let byPayment = Dictionary(shown.map { ($0.paymentId, $0) }, uniquingKeysWith: { first, _ in first })
        let active = Set(snapshot.activePurchases.map(\.paymentId))
        account = Account(id: buyer.account.uuidString.lowercased(), email: buyer.email, sandbox: buyer.sandbox,
                          accountToken: accountToken.uuidString.lowercased())
        entitlements = snapshot.entitlements.keys.sorted().map { id in
            let access = snapshot.entitlements[id]!
            let purchase = byPayment[access.paymentId]
            return Entitlement(
                id: id, productId: access.isGrant ? nil : access.productId,
                store: access.isGrant ? EntitlementGrantStore.store : purchase?.store.rawValue,
                environment: access.environment.rawValue, startedAt: RFC3339.format(access.startedAt),
                expiresAt: access.expiresAt.map(RFC3339.format),
                willRenew: access.isGrant ? false : purchase?.willRenew,
                periodType: access.isGrant ? PeriodType.promotional.rawValue : (purchase?.periodType ?? .normal).rawValue,
                paymentId: access.paymentId.uuidString.lowercased())
        }
        self.purchases = shown.map { purchase in
            Purchase(
                paymentId: purchase.paymentId.uuidString.lowercased(), productId: purchase.productId, store: purchase.store.rawValue,
                type: purchase.productType.rawValue, subscription: purchase.productType.isSubscription, status: purchase.status.rawValue,
                active: active.contains(purchase.paymentId), environment: purchase.environment?.rawValue,
                purchaseDate: purchase.purchaseDate.map(RFC3339.format), expiresDate: purchase.expiresDate.map(RFC3339.format),
                revokedAt: purchase.revokedAt.map(RFC3339.format), willRenew: purchase.willRenew,
                periodType: purchase.periodType?.rawValue ?? (purchase.productType.isSubscription ? PeriodType.normal.rawValue : nil),
                subscriptionState: purchase.subscriptionState?.rawValue, quantity: purchase.quantity)
        }
    }
}
