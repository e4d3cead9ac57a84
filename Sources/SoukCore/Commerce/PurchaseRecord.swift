import Foundation

/// A granted purchase (or a promotional grant) as the entitlement engine sees it (spec §5): what was bought, in which
/// environment, and when its access starts, ends or was taken back.
public struct PurchaseRecord: Sendable, Equatable {
    /// The payment id Souk answered with (`{"data": {"type": "payment", "id": …}}`).
    public var paymentId: UUID
    /// Souk's product id (not the store SKU).
    public var productId: String
    public var type: ProductType
    public var environment: CommerceEnvironment
    public var purchaseDate: Date
    /// The store's expiry (auto-renewable); non-renewing ends are computed from the catalog duration.
    public var expiresDate: Date?
    /// Refund or revocation: access ends at once.
    public var revokedAt: Date?
    public var quantity: Int
    /// Access kept past `expiresDate` until then (an auto-renewable in its grace period, a Roku
    /// subscription in recovery).
    public var graceExpiresDate: Date?
    /// A promotional grant (`souk entitlements grant`): the record opens this entitlement only, from
    /// `purchaseDate` until `expiresDate` (or for good), and is no product; `paymentId` is the grant's id.
    public var grantedEntitlement: String?

    public init(paymentId: UUID, productId: String, type: ProductType, environment: CommerceEnvironment, purchaseDate: Date,
                expiresDate: Date? = nil, revokedAt: Date? = nil, quantity: Int = 1, graceExpiresDate: Date? = nil,
                grantedEntitlement: String? = nil) {
        self.graceExpiresDate = graceExpiresDate
        self.grantedEntitlement = grantedEntitlement
        self.paymentId = paymentId
        self.productId = productId
        self.type = type
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revokedAt = revokedAt
        self.quantity = quantity
    }
}
