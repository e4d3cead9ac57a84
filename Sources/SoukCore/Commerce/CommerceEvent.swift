import Foundation

/// One lifecycle event of a person's purchases in an app: recorded once
/// (its `dedupKey` is unique per app), listed by `souk purchases events`, and delivered to the
/// app's webhooks as `{"id", "type", "environment", "app", "account", "occurredAt", "data"}`.
public struct CommerceEvent: Sendable, Equatable {
    /// The event id the webhooks carry (deliveries are deduplicated by it).
    public var id: UUID
    public var app: String
    public var accountId: UUID
    public var type: LifecycleEventType
    public var source: LifecycleSource
    /// A grant's is its account's (Sandbox for sandbox accounts).
    public var environment: CommerceEnvironment
    /// When it happened at the store (or when the operator acted), not when Souk heard of it.
    public var occurredAt: Date
    public var createdAt: Date
    /// Souk's product id; nil for a grant.
    public var productId: String?
    /// A grant's entitlement id.
    public var entitlementId: String?
    /// `apple_store`, `google_play`, `amazon`, `roku`, or `promotional` for a grant.
    public var store: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    /// The purchase's payment id, or the grant's id.
    public var paymentId: UUID?
    public var expiresAt: Date?
    /// What makes the event one event: two sources telling the same change (a notification and a
    /// reconciliation) record it once. E.g. `renewal|apple_store|<transactionId>`.
    public var dedupKey: String

    public init(id: UUID = UUID(), app: String, accountId: UUID, type: LifecycleEventType, source: LifecycleSource,
                environment: CommerceEnvironment, occurredAt: Date, createdAt: Date, productId: String? = nil, entitlementId: String? = nil,
                store: String? = nil, transactionId: String? = nil, originalTransactionId: String? = nil, paymentId: UUID? = nil,
                expiresAt: Date? = nil, dedupKey: String) {
        self.id = id
        self.app = app
        self.accountId = accountId
        self.type = type
        self.source = source
        self.environment = environment
        self.occurredAt = occurredAt
        self.createdAt = createdAt
        self.productId = productId
        self.entitlementId = entitlementId
        self.store = store
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.paymentId = paymentId
        self.expiresAt = expiresAt
        self.dedupKey = dedupKey
    }
}
