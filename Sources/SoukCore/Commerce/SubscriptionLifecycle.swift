import Foundation

/// Where a purchase stands in its store (spec §5): one vocabulary for every store. Whether it gives
/// access is decided by its dates at the moment of the question (`EntitlementEngine`); the state
/// says why, for the customer endpoint, the events and the operator.
public enum SubscriptionState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Paid and renewing (Apple status 1, Google ACTIVE, Amazon renewal ahead, Roku Active).
    case active
    /// Will not renew, period not over: access until the expiry.
    case cancelled
    /// Payment failed, access kept until `graceExpiresDate` (Apple 4, Google IN_GRACE_PERIOD,
    /// Amazon gracePeriodEndDate, Roku entitled past its expiry: recovery).
    case gracePeriod = "grace_period"
    /// Payment failed, no access while the store retries (Apple 3, Google ON_HOLD).
    case billingRetry = "billing_retry"
    /// Paused by the person (Google PAUSED): no access.
    case paused
    /// Ended (Apple 2, Google EXPIRED, Amazon cancelDate past, Roku not entitled).
    case expired
    /// Refunded or revoked: no access, at once.
    case revoked

    /// Whether the state by itself keeps access (the dates still bound it).
    public var keepsAccess: Bool {
        switch self {
        case .active, .cancelled, .gracePeriod: true
        case .billingRetry, .paused, .expired, .revoked: false
        }
    }
}

/// How the current period was paid for (the customer endpoint's `periodType`).
public enum PeriodType: String, Sendable, Hashable, Codable, CaseIterable {
    case normal
    case trial
    case intro
    case promotional
}

/// What made a lifecycle change (`souk purchases events`, webhook events).
public enum LifecycleSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app reported the purchase (`POST transactions`, restore, the pending worker).
    case intake
    /// A store notification (App Store Server Notifications V2, Google RTDN).
    case notification
    /// Souk asked the store again (the reconciliation service, `souk stores reconcile`).
    case reconciliation
    /// An operator command (grant, revoke, consume).
    case `operator`
}

/// The lifecycle events Souk records and delivers to the developer's webhooks.
public enum LifecycleEventType: String, Sendable, Hashable, Codable, CaseIterable {
    case initialPurchase = "initial_purchase"
    case renewal
    case cancellation
    case uncancellation
    case billingIssue = "billing_issue"
    case expiration
    case refund
    case productChange = "product_change"
    case transfer
    case consumption
    case grant
    case grantRevoked = "grant_revoked"
}

/// What a store says about a subscription besides its transaction (renewal info, status): filled by
/// the verifiers that know it; nil for one-time purchases and stores that say nothing more.
public struct StoreLifecycle: Sendable, Hashable {
    public var state: SubscriptionState
    /// nil when the store does not say.
    public var willRenew: Bool?
    /// Access kept until then although the expiry passed (grace period, Roku recovery).
    public var graceExpiresDate: Date?
    public var periodType: PeriodType
    /// The product the next period renews into (Apple `autoRenewProductId`, Google's next line item).
    public var autoRenewStoreProductId: String?
    /// When Souk should ask the store again without waiting for a notification (Roku recovery,
    /// an expiry or a grace period ending); nil: at the expiry.
    public var recheckAt: Date?

    public init(state: SubscriptionState, willRenew: Bool? = nil, graceExpiresDate: Date? = nil, periodType: PeriodType = .normal,
                autoRenewStoreProductId: String? = nil, recheckAt: Date? = nil) {
        self.state = state
        self.willRenew = willRenew
        self.graceExpiresDate = graceExpiresDate
        self.periodType = periodType
        self.autoRenewStoreProductId = autoRenewStoreProductId
        self.recheckAt = recheckAt
    }
}

/// Why a store gave no verdict. A verifier throws it instead of answering; the purchase stays
/// pending (202) and is checked again — it is never a refusal.
public struct StoreFault: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// Timeouts, connection errors, 5xx after the retries.
        case unavailable
        /// 429 after the retries.
        case rateLimited = "rate-limited"
        /// The operator's own credentials were refused (Amazon 496/499, Google 401/403, a bad
        /// In-App Purchase key): shown by `souk stores status`, not a verdict on the purchase.
        case credentials
        /// The store says the purchase is still pending (Google purchaseState 2, Roku Pending_*).
        case pendingAtStore = "pending-at-store"
        /// The app's settings for this store are incomplete (no key, no package name).
        case notConfigured = "not-configured"
    }

    public var kind: Kind
    /// For the operator; never holds a secret, a receipt or a token.
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
