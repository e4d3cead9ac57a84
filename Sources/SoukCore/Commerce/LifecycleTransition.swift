import Foundation

/// The part of a purchase that lifecycle events are derived from, so the same comparison serves
/// intake, notifications and reconciliation whatever store made the statement.
public struct PurchaseLifecycleFacts: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String?
    public var storeProductId: String
    public var productId: String?
    public var expiresDate: Date?
    public var revokedAt: Date?
    public var state: SubscriptionState?
    public var willRenew: Bool?
    public var graceExpiresDate: Date?
    public var autoRenewStoreProductId: String?

    public init(
        transactionId: String, originalTransactionId: String? = nil, storeProductId: String,
        productId: String? = nil, expiresDate: Date? = nil, revokedAt: Date? = nil,
        state: SubscriptionState? = nil, willRenew: Bool? = nil, graceExpiresDate: Date? = nil,
        autoRenewStoreProductId: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.storeProductId = storeProductId
        self.productId = productId
        self.expiresDate = expiresDate
        self.revokedAt = revokedAt
        self.state = state
        self.willRenew = willRenew
        self.graceExpiresDate = graceExpiresDate
        self.autoRenewStoreProductId = autoRenewStoreProductId
    }
}

/// Derives events by comparing what Souk held with a newer store statement, so every store feeds
/// one event vocabulary and a repeated statement derives nothing new.
public enum LifecycleTransition {
    /// The least move of one transaction's expiry that is a renewal (the shortest period is a day; a grace adjustment is less).
    public static let renewalShift: TimeInterval = 3600

    /// The events between what Souk held and the store's newer statement, in a stable order.
    public static func events(before: PurchaseLifecycleFacts?, after: PurchaseLifecycleFacts) -> [LifecycleEventType] {
        guard let before else {
            return after.revokedAt == nil ? [.initialPurchase] : [.initialPurchase, .refund]
        }
        var events: [LifecycleEventType] = []
        if after.transactionId != before.transactionId {
            // Product identity: Souk's product when both sides know it, else the store SKU.
            let sameProduct: Bool
            if let old = before.productId, let new = after.productId {
                sameProduct = old == new
            } else {
                sameProduct = before.storeProductId == after.storeProductId
            }
            events.append(sameProduct ? .renewal : .productChange)
        } else if let old = before.expiresDate, let new = after.expiresDate, new.timeIntervalSince(old) >= renewalShift, after.revokedAt == nil {
            // Stores that keep one receipt across renewals (Amazon, Roku) renew by moving its expiry
            // (by a period; a store correcting an expiry by seconds is not a renewal).
            events.append(.renewal)
        }
        let ended = after.state == .expired || after.state == .revoked || after.revokedAt != nil
        // What Souk knew of auto-renew: nil when nobody said (an Apple intake without an App Store
        // Server API answer), unless the state already said cancelled.
        let renewing = before.willRenew ?? (before.state == .cancelled ? false : nil)
        if renewing != false, after.willRenew == false, !ended {
            // Renewing, or not known to be, and now it will not: a cancellation. A subscription that
            // ended (expired, refunded) says so by its own event; it was not cancelled.
            events.append(.cancellation)
        } else if renewing == false, after.willRenew == true {
            events.append(.uncancellation)
        }
        if let state = after.state, state != before.state {
            switch state {
            case .billingRetry, .gracePeriod:
                // Grace following billing retry (or the reverse) is the same billing issue.
                if before.state != .billingRetry, before.state != .gracePeriod {
                    events.append(.billingIssue)
                }
            case .expired:
                events.append(.expiration)
            default:
                break
            }
        }
        if before.revokedAt == nil, after.revokedAt != nil {
            events.append(.refund)
        }
        return events
    }
}
