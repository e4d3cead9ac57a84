import Foundation

/// What the app reports about a purchase (Zapp's payment-provider API's `data.transaction`, with `data.store`): a
/// claim, never trusted as such. Only the store's verified answer says what was bought.
public struct PurchaseClaim: Sendable, Equatable {
    public var store: CommerceStore
    /// The app (bundle id / package name) the purchase must belong to.
    public var app: String
    /// `data.transaction.storeProductId`: the SKU the app says it bought.
    public var storeProductId: String
    /// `data.transaction.transactionId` (Google: the purchase token; Amazon: the receipt id).
    public var transactionId: String
    /// `data.transaction.userId` (mandatory for Amazon).
    public var userId: String?
    /// `data.transaction.receipt`: for Apple, the StoreKit 2 signed transaction (JWS), or empty: then
    /// the transaction is looked up by `transactionId` (App Store Server API); for Google, Play
    /// Billing's purchase JSON or the bare purchase token.
    public var receipt: String
    /// The catalog's type of the product claimed (Google reads one-time products and subscriptions
    /// at different endpoints); nil when not known yet (restore).
    public var productType: ProductType?
    /// The buyer is a sandbox account (Amazon checks sandbox accounts at RVS's sandbox path).
    public var accountIsSandbox: Bool

    public init(store: CommerceStore, app: String, storeProductId: String, transactionId: String, userId: String? = nil, receipt: String,
                productType: ProductType? = nil, accountIsSandbox: Bool = false) {
        self.store = store
        self.app = app
        self.storeProductId = storeProductId
        self.transactionId = transactionId
        self.userId = userId
        self.receipt = receipt
        self.productType = productType
        self.accountIsSandbox = accountIsSandbox
    }
}

/// A purchase as a store verified it. Every field comes from the store's signed or authenticated
/// answer, never from the unsigned CloudEvent.
public struct VerifiedPurchase: Sendable, Equatable {
    public var store: CommerceStore
    public var transactionId: String
    /// Ties renewals, restores and re-purchases of one subscription together; ownership and
    /// transfers follow it.
    public var originalTransactionId: String
    /// The product id in the store (the SKU).
    public var storeProductId: String
    /// The type the store reports, when it does.
    public var type: ProductType?
    public var purchaseDate: Date
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var revocationDate: Date?
    /// Kept as the store's raw value (Apple adds new ones).
    public var revocationReason: String?
    public var quantity: Int
    /// `PURCHASED` or `FAMILY_SHARED` (raw).
    public var ownershipType: String
    public var environment: CommerceEnvironment
    /// The app the store says the purchase belongs to.
    public var app: String
    /// When the store signed this statement; a later statement about the same transaction wins.
    public var signedDate: Date
    public var appAccountToken: String?
    /// Renewal state, grace period, will-renew: set by stores that say it, for subscriptions.
    public var lifecycle: StoreLifecycle?
    /// What asks the store about this purchase again when it is not the transaction id: Google's
    /// purchase token. Kept with the purchase (never logged).
    public var storeReference: String?
    /// Google's `linkedPurchaseToken`: the purchase this one replaces (upgrade, downgrade, resubscribe).
    public var linkedStoreReference: String?
    /// false: Souk must acknowledge it at the store (Google, within 3 days); nil: nothing to acknowledge.
    public var acknowledged: Bool?
    /// false: a consumable the store still holds as owned (Google consumptionState 0); nil: n/a.
    public var consumed: Bool?
    /// Google Play one-time products (`purchases.productsv2`): the purchase option and the offer it
    /// was bought through; nil where the store says none.
    public var purchaseOptionId: String?
    public var offerId: String?
    /// What the customer paid for this transaction, in milli-units of `currency` (Apple's `price`),
    /// as the store's answer states it; nil where the store does not say (docs/metrics.md).
    public var price: Int64?
    /// ISO 4217 code of `price`.
    public var currency: String?
    /// Where it was bought, ISO 3166-1 alpha-2 (`CountryCode`): Apple's `storefront`, Google's
    /// `regionCode`; nil where the store does not say (docs/metrics.md, "Filters").
    public var country: String?

    public init(store: CommerceStore, transactionId: String, originalTransactionId: String, storeProductId: String,
                type: ProductType?, purchaseDate: Date, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
                revocationDate: Date? = nil, revocationReason: String? = nil, quantity: Int = 1,
                ownershipType: String = "PURCHASED", environment: CommerceEnvironment, app: String, signedDate: Date,
                appAccountToken: String? = nil, lifecycle: StoreLifecycle? = nil, storeReference: String? = nil,
                linkedStoreReference: String? = nil, acknowledged: Bool? = nil, consumed: Bool? = nil) {
        self.lifecycle = lifecycle
        self.storeReference = storeReference
        self.linkedStoreReference = linkedStoreReference
        self.acknowledged = acknowledged
        self.consumed = consumed
        self.store = store
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.storeProductId = storeProductId
        self.type = type
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.quantity = quantity
        self.ownershipType = ownershipType
        self.environment = environment
        self.app = app
        self.signedDate = signedDate
        self.appAccountToken = appAccountToken
    }
}

/// Why a purchase was refused. `code` is stable (it ends the problem type URI); `detail` is for people.
public struct PurchaseRefusal: Sendable, Equatable, Error {
    public var code: String
    public var detail: String

    public init(_ code: String, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public static func invalidSignature(_ detail: String) -> PurchaseRefusal { .init("invalid-signature", detail) }
    public static func wrongApp(_ detail: String) -> PurchaseRefusal { .init("wrong-app", detail) }
    public static func wrongEnvironment(_ detail: String) -> PurchaseRefusal { .init("wrong-environment", detail) }
    public static func unknownProduct(_ detail: String) -> PurchaseRefusal { .init("unknown-product", detail) }
    public static func productMismatch(_ detail: String) -> PurchaseRefusal { .init("product-mismatch", detail) }
    public static func invalidReceipt(_ detail: String) -> PurchaseRefusal { .init("invalid-receipt", detail) }
}

/// A store's verdict on a claim.
public enum StoreVerdict: Sendable, Equatable {
    case verified(VerifiedPurchase)
    case refused(PurchaseRefusal)
}

/// Verifies purchase claims with one store. Apple's is local (signed data) or asks the App Store
/// Server API; the others call their store. A verifier *throws* only when it cannot reach a verdict
/// (`StoreFault`: the store is down, slow, rate-limiting, refused the operator's credentials, or
/// the purchase is still pending there): that is never a refusal — the purchase waits and is
/// checked again (202 + `Location`).
///
/// The same call re-reads a recorded purchase (reconciliation, notifications): the claim is then
/// rebuilt from the stored purchase (Google: `receipt` = the purchase token; Apple: an empty
/// receipt and the transaction id).
public protocol StoreVerifier: Sendable {
    var store: CommerceStore { get }
    func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict
}
