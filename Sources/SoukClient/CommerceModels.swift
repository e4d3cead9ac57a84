import Foundation

/// The store a purchase was made in, as Souk's commerce API names it.
public enum Store: String, Sendable, Hashable, CaseIterable {
    case appleStore = "apple_store"
    case googlePlay = "google_play"
    case amazon
    case roku
}

/// A product the person is entitled to now.
public struct Entitlement: Sendable, Hashable {
    /// The product's id in the app's catalog.
    public let productId: String

    public init(productId: String) {
        self.productId = productId
    }
}

/// A purchase as the app saw it in the store, to be verified and recorded by Souk (a CloudEvents
/// payment-validation event, docs/commerce.md). Nothing in it is trusted; the store's answer is.
public struct StorePurchase: Sendable, Hashable {
    /// The product's id in the app's catalog.
    public var productId: String
    /// The store's product id (the SKU).
    public var storeProductId: String
    /// The store's transaction id.
    public var transactionId: String
    /// Apple: the signed transaction (JWS); Google Play: the purchase token or JSON.
    public var receipt: String?
    /// Amazon: the store's user id.
    public var storeUserId: String?
    public var store: Store
    /// The event's id: Souk records an event once per app, `source` and `id`, so a retry of the same
    /// event is answered `duplicate-event` rather than recorded twice.
    public var eventId: String
    /// The event's `source` (a URI reference naming the app and its version).
    public var source: String

    public init(productId: String, storeProductId: String, transactionId: String, receipt: String? = nil,
                storeUserId: String? = nil, store: Store = .appleStore, eventId: String = UUID().uuidString,
                source: String) {
        self.productId = productId
        self.storeProductId = storeProductId
        self.transactionId = transactionId
        self.receipt = receipt
        self.storeUserId = storeUserId
        self.store = store
        self.eventId = eventId
        self.source = source
    }
}

/// What Souk made of a reported purchase.
public enum PaymentOutcome: Sendable, Hashable {
    /// Verified with the store and recorded (`201`).
    case recorded(paymentId: String)
    /// The store did not answer in time (`202`): the entitlement appears once it does; `location`
    /// is the entitlement to poll.
    case pending(paymentId: String, location: String?)
}

/// What a restore re-attached.
public struct RestoreResult: Sendable, Hashable {
    /// The person's entitlements after the restore.
    public let entitlements: [Entitlement]
    /// How many of the signed transactions were refused (the others were restored).
    public let refusedCount: Int
}
