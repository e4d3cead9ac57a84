import Foundation
import SQLKit
import SoukCore

/// Where a reported purchase stands (`purchases.status`).
public enum PurchaseStatus: String, Sendable, Equatable, CaseIterable {
    /// Reported, not verified yet (the store was slow or down); the pending worker retries it.
    case pending
    /// Verified and recorded for the account. It gives access only while active (an expired or
    /// refunded purchase is recorded and grants nothing).
    case granted
    /// The store, the catalog or the transfer policy refused it.
    case refused
}

/// One row of `purchases`, as the operator and the purchase path see it.
public struct StoredPurchase: Sendable, Equatable {
    /// The payment id Souk answered with.
    public var paymentId: UUID
    public var app: String
    public var accountId: UUID
    public var store: CommerceStore
    public var status: PurchaseStatus
    /// nil while pending or when refused before verification.
    public var environment: CommerceEnvironment?
    /// Souk's product id.
    public var productId: String
    public var storeProductId: String
    /// The transaction id the app claimed (unverified).
    public var claimedTransactionId: String
    /// The store's transaction id, once verified.
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productType: ProductType
    public var purchaseDate: Date?
    public var expiresDate: Date?
    public var revokedAt: Date?
    public var revocationReason: String?
    public var quantity: Int
    public var signedDate: Date?
    public var refusal: PurchaseRefusal?
    public var attempts: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// Where it stands in its store's lifecycle (subscriptions; nil when the store said nothing more).
    public var subscriptionState: SubscriptionState?
    public var willRenew: Bool?
    public var graceExpiresDate: Date?
    public var periodType: PeriodType?
    /// The store SKU the next period renews into.
    public var autoRenewStoreProductId: String?
    /// Google's purchase token: what re-reads the purchase at the store. Never printed or logged.
    public var storeReference: String?
    /// Amazon's user id (needed to ask RVS again).
    public var userId: String?
    /// When reconciliation asks the store about it again (nil: not due).
    public var nextCheckAt: Date?
    public var lastCheckedAt: Date?
    /// false: Souk still has to acknowledge it at the store (Google); true: done; nil: nothing to do.
    public var storeAcknowledged: Bool?
    /// false: a consumable Souk still has to consume at the store (Google); true: done; nil: n/a.
    public var storeConsumed: Bool?
    /// The last failure of an acknowledgement or consumption (for the operator; no secrets).
    public var actionError: String?

    /// What Souk owes the store (Google), for `souk purchases list`: `acknowledged`, `consumed`,
    /// `acknowledging` / `consuming` (with the last error while it fails), or `-` when nothing is owed.
    public var storeActionSummary: String {
        let owed: String? = if storeConsumed == false {
            "consuming"
        } else if storeAcknowledged == false {
            "acknowledging"
        } else {
            nil
        }
        if let owed { return actionError.map { "\(owed) (\($0))" } ?? owed }
        if storeConsumed == true { return "consumed" }
        return storeAcknowledged == true ? "acknowledged" : "-"
    }

    /// The record the entitlement engine reads; nil unless granted.
    public var record: PurchaseRecord? {
        guard status == .granted, let environment, let purchaseDate else { return nil }
        return PurchaseRecord(paymentId: paymentId, productId: productId, type: productType, environment: environment,
                              purchaseDate: purchaseDate, expiresDate: expiresDate, revokedAt: revokedAt, quantity: quantity,
                              graceExpiresDate: graceExpiresDate)
    }

    static let columns = "id, app, account_id, store, status, environment, product_id, store_product_id, claimed_transaction_id, " +
        "transaction_id, original_transaction_id, product_type, purchase_date, expires_date, revoked_at, revocation_reason, " +
        "quantity, signed_date, refusal_code, refusal_detail, attempts, created_at, updated_at, subscription_state, will_renew, " +
        "grace_expires_at, period_type, auto_renew_product_id, store_reference, user_id, next_check_at, last_checked_at, " +
        "store_acknowledged, store_consumed, action_error"

    static func decode(_ row: any SQLRow) throws -> StoredPurchase {
        let refusalCode = try row.decode(column: "refusal_code", as: String?.self)
        let refusalDetail = try row.decode(column: "refusal_detail", as: String?.self) ?? ""
        return StoredPurchase(
            paymentId: try row.decode(column: "id", as: UUID.self),
            app: try row.decode(column: "app", as: String.self),
            accountId: try row.decode(column: "account_id", as: UUID.self),
            store: CommerceStore(rawValue: try row.decode(column: "store", as: String.self)) ?? .appleStore,
            status: PurchaseStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .refused,
            environment: try row.decode(column: "environment", as: String?.self).flatMap(CommerceEnvironment.init(rawValue:)),
            productId: try row.decode(column: "product_id", as: String.self),
            storeProductId: try row.decode(column: "store_product_id", as: String.self),
            claimedTransactionId: try row.decode(column: "claimed_transaction_id", as: String.self),
            transactionId: try row.decode(column: "transaction_id", as: String?.self),
            originalTransactionId: try row.decode(column: "original_transaction_id", as: String?.self),
            productType: ProductType(rawValue: try row.decode(column: "product_type", as: String.self)) ?? .consumable,
            purchaseDate: try row.decode(column: "purchase_date", as: Date?.self),
            expiresDate: try row.decode(column: "expires_date", as: Date?.self),
            revokedAt: try row.decode(column: "revoked_at", as: Date?.self),
            revocationReason: try row.decode(column: "revocation_reason", as: String?.self),
            quantity: try row.decode(column: "quantity", as: Int.self),
            signedDate: try row.decode(column: "signed_date", as: Date?.self),
            refusal: refusalCode.map { PurchaseRefusal($0, refusalDetail) },
            attempts: try row.decode(column: "attempts", as: Int.self),
            createdAt: try row.decode(column: "created_at", as: Date.self),
            updatedAt: try row.decode(column: "updated_at", as: Date.self),
            subscriptionState: try row.decode(column: "subscription_state", as: String?.self).flatMap(SubscriptionState.init(rawValue:)),
            willRenew: try row.decode(column: "will_renew", as: Bool?.self),
            graceExpiresDate: try row.decode(column: "grace_expires_at", as: Date?.self),
            periodType: try row.decode(column: "period_type", as: String?.self).flatMap(PeriodType.init(rawValue:)),
            autoRenewStoreProductId: try row.decode(column: "auto_renew_product_id", as: String?.self),
            storeReference: try row.decode(column: "store_reference", as: String?.self),
            userId: try row.decode(column: "user_id", as: String?.self),
            nextCheckAt: try row.decode(column: "next_check_at", as: Date?.self),
            lastCheckedAt: try row.decode(column: "last_checked_at", as: Date?.self),
            storeAcknowledged: try row.decode(column: "store_acknowledged", as: Bool?.self),
            storeConsumed: try row.decode(column: "store_consumed", as: Bool?.self),
            actionError: try row.decode(column: "action_error", as: String?.self))
    }
}

/// A purchase waiting for its store's verdict, claimed by the pending worker.
public struct PendingPurchase: Sendable, Equatable {
    public var paymentId: UUID
    public var accountId: UUID
    public var productId: String
    public var claim: PurchaseClaim
    /// Attempts including the one this claim starts.
    public var attempts: Int
}

/// The CloudEvent that reported a purchase: unique per app and `source`.
public struct PurchaseEventKey: Sendable, Hashable {
    public var app: String
    public var source: String
    public var id: String

    public init(app: String, source: String, id: String) {
        self.app = app
        self.source = source
        self.id = id
    }
}

/// A consumable balance (`consumable_balances`).
public struct ConsumableBalance: Sendable, Equatable {
    public var productId: String
    public var environment: CommerceEnvironment
    public var balance: Int

    public init(productId: String, environment: CommerceEnvironment, balance: Int) {
        self.productId = productId
        self.environment = environment
        self.balance = balance
    }
}

extension PurchaseRefusal {
    /// The store transaction belongs to another account and the transfer policy keeps it there.
    public static func ownedByAnotherAccount(_ detail: String) -> PurchaseRefusal { .init("owned-by-another-account", detail) }
}
