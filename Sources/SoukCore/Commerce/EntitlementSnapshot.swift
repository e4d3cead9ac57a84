import Foundation

/// Access to one product or entitlement, and the purchase it comes from.
public struct ProductAccess: Sendable, Equatable {
    public var productId: String
    public var startedAt: Date
    /// nil: it does not end (a non-consumable).
    public var expiresAt: Date?
    public var paymentId: UUID
    public var environment: CommerceEnvironment
    /// The access comes from a promotional grant (`paymentId` is the grant's id, `productId` empty).
    public var isGrant: Bool

    public init(productId: String, startedAt: Date, expiresAt: Date?, paymentId: UUID, environment: CommerceEnvironment, isGrant: Bool = false) {
        self.isGrant = isGrant
        self.productId = productId
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.paymentId = paymentId
        self.environment = environment
    }

    /// Whether this access should stand for its id rather than `other`: the later end wins
    /// (no end is latest); then Production over Sandbox, the later start, the payment id — so
    /// the answer never depends on the order purchases were read in.
    func outranks(_ other: ProductAccess) -> Bool {
        switch (expiresAt, other.expiresAt) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (let a?, let b?) where a != b: return a > b
        default: break
        }
        if environment != other.environment { return environment == .production }
        if startedAt != other.startedAt { return startedAt > other.startedAt }
        return paymentId.isOrdered(before: other.paymentId)
    }
}

/// A person's entitlements in one app at one instant (spec §5).
public struct EntitlementSnapshot: Sendable, Equatable {
    /// Every product the person is entitled to (bought, or all its entitlements covered); never consumables.
    public var products: [String: ProductAccess]
    /// Entitlement id → access (latest expiry wins).
    public var entitlements: [String: ProductAccess]
    /// Bought directly and active now (user-purchases), never consumables.
    public var activePurchases: [ProductAccess]

    public init(products: [String: ProductAccess] = [:], entitlements: [String: ProductAccess] = [:], activePurchases: [ProductAccess] = []) {
        self.products = products
        self.entitlements = entitlements
        self.activePurchases = activePurchases
    }

    /// Product id first, then entitlement id.
    public func access(to id: String) -> ProductAccess? {
        products[id] ?? entitlements[id]
    }

    /// The product ids of `products`, sorted (a stable order for `GET entitlements`).
    public var productIds: [String] { products.keys.sorted() }
}
