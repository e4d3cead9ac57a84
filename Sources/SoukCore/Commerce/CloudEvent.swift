import Foundation

/// A purchase reported by an app (Zapp's payment-provider API, `POST transactions`): a CloudEvents 1.0 event whose
/// `data` names the store transaction. Nothing in it is trusted until the store has verified it.
public struct PaymentValidationEvent: Sendable, Equatable {
    /// Unique per event from one `source`; a retry carries the same id.
    public var id: String
    /// `<APP_URLSCHEME>://<BUNDLE_ID>/versions/<VERSION>` in the seed.
    public var source: String
    /// `com.applicaster.payment.validate` in the seed.
    public var type: String
    /// Always `1.0`.
    public var specversion: String
    public var subject: String?
    public var time: Date?
    public var data: PaymentValidationData

    public init(id: String, source: String, type: String, specversion: String = "1.0", subject: String? = nil, time: Date? = nil,
                data: PaymentValidationData) {
        self.id = id
        self.source = source
        self.type = type
        self.specversion = specversion
        self.subject = subject
        self.time = time
        self.data = data
    }
}

/// The event's `data` (Zapp's payment-provider API).
public struct PaymentValidationData: Sendable, Equatable {
    public var transaction: PaymentTransaction
    /// The entry that started the purchase flow (optional).
    public var itemId: String?
    /// Souk's product id (the `id` of the `products` feed entry), not the store SKU.
    public var productId: String
    /// The signed-in person as the app knows them; it must name the token's account.
    public var username: String?
    /// `data.store`, or the store of `data.platform` when the app left it out.
    public var store: CommerceStore
    public var platform: String?

    public init(transaction: PaymentTransaction, itemId: String? = nil, productId: String, username: String? = nil,
                store: CommerceStore, platform: String? = nil) {
        self.transaction = transaction
        self.itemId = itemId
        self.productId = productId
        self.username = username
        self.store = store
        self.platform = platform
    }
}

/// `data.transaction` (Zapp's payment-provider API).
public struct PaymentTransaction: Sendable, Equatable {
    /// The product id in the store (the SKU).
    public var storeProductId: String
    /// The store's transaction id (Google: the purchase token; Amazon: the receipt id).
    public var transactionId: String
    /// The store's user id (mandatory for Amazon).
    public var userId: String?
    /// As the platform gave it; a JSON object is kept as its JSON text. For Apple: the StoreKit 2 JWS.
    public var receipt: String

    public init(storeProductId: String, transactionId: String, userId: String? = nil, receipt: String) {
        self.storeProductId = storeProductId
        self.transactionId = transactionId
        self.userId = userId
        self.receipt = receipt
    }
}

extension PaymentValidationEvent {
    /// The claim to hand to the store's verifier for `app`.
    public func claim(app: String) -> PurchaseClaim {
        PurchaseClaim(store: data.store, app: app, storeProductId: data.transaction.storeProductId,
                      transactionId: data.transaction.transactionId, userId: data.transaction.userId,
                      receipt: data.transaction.receipt)
    }
}

/// Why a request is not a payment-validation event: `path` names the attribute (`specversion`,
/// `ce-id` in binary mode) or the member of `data` (`data.transaction.storeProductId`).
public typealias CloudEventError = JSONPathError
