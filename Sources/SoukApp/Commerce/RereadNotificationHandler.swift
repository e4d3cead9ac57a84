import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Amazon Real-Time Notifications and Roku Pay push notifications → the lifecycle. Neither says
/// anything Souk believes: each only names a transaction (Amazon's receipt id, Roku's transaction
/// id), which is read again at the store (RVS `verifyReceiptId`, Roku `validate-transaction`) and
/// applied as any re-read is (`PurchaseStore.apply`, source `notification`). The routes run it at
/// once; the worker runs it again for a row the route could not settle (a store outage).
public struct RereadNotificationHandler: StoreNotificationHandler {
    public var store: String { kind.rawValue }
    package let kind: CommerceStore
    package let verifier: any StoreVerifier
    package let purchases: PurchaseStore
    package let catalogs: CommerceCatalogCache

    public init(kind: CommerceStore, verifier: any StoreVerifier, purchases: PurchaseStore, catalogs: CommerceCatalogCache) {
        self.kind = kind
        self.verifier = verifier
        self.purchases = purchases
        self.catalogs = catalogs
    }

    /// The transaction a stored body names: the RTN's `receiptId` inside the SNS message, Roku's `transactionId`.
    package func transactionId(in payload: String) -> String? {
        switch kind {
        case .amazon:
            guard let sns = try? AmazonSNSMessage.parse(payload), sns.type == "Notification" else { return nil }
            return try? AmazonRealTimeNotification.parse(sns.message).receiptId
        case .roku:
            return try? RokuPushNotification.parse(payload).transactionId
        default:
            return nil
        }
    }

    public func handle(_ notification: StoredStoreNotification) async throws -> StoreNotificationOutcome {
        let received = notification.received
        guard let transactionId = transactionId(in: received.payload) else {
            return .ignored("\(received.type): names no transaction")
        }
        guard let claim = try await claim(app: received.app, transactionId: transactionId) else {
            return .unmatched("\(received.type): \(kind.rawValue) transaction \(transactionId) was never reported to Souk")
        }
        switch try await verifier.verify(claim) {
        case .refused(let refusal):
            // A refusal on re-reading is not a verdict on what Souk recorded (as for reconciliation).
            return .ignored("\(received.type): the store did not confirm the transaction on re-reading (\(refusal.code))")
        case .verified(let purchase):
            return try await apply(purchase, app: received.app, label: received.type)
        }
    }

    /// What to ask the store: the transaction as Souk recorded it (Amazon needs the user id RVS
    /// verified at intake), or for Roku, whose id alone is enough, the bare id. nil: Souk cannot ask.
    package func claim(app: String, transactionId: String) async throws -> PurchaseClaim? {
        let known = try await known(app: app, transactionId: transactionId)
        if kind == .amazon, known?.userId == nil { return nil }
        var sandbox = false
        if let known { sandbox = try await purchases.accountIsSandbox(known.accountId) ?? false }
        return PurchaseClaim(store: kind, app: app, storeProductId: known?.storeProductId ?? "", transactionId: transactionId,
                             userId: known?.userId, receipt: "", productType: known?.productType,
                             accountIsSandbox: sandbox || known?.environment == .sandbox)
    }

    /// The newest purchase Souk recorded under this transaction (or as its original).
    package func known(app: String, transactionId: String) async throws -> StoredPurchase? {
        let byOriginal = try await purchases.purchases(app: app, store: kind, originalTransactionId: transactionId)
        if let first = byOriginal.first { return first }
        return try await purchases.purchases(app: app, store: kind, storeReference: transactionId).first
    }

    /// Whether a transaction the store confirmed is this app's: Souk recorded it (or its original), or
    /// it is of a product in this app's catalog.
    package func belongs(_ purchase: VerifiedPurchase, app: String) async throws -> Bool {
        if try await known(app: app, transactionId: purchase.transactionId) != nil { return true }
        if try await known(app: app, transactionId: purchase.originalTransactionId) != nil { return true }
        return try await catalogs.state(app: app)?.product(store: kind, sku: purchase.storeProductId) != nil
    }

    /// Applies what the store said now.
    package func apply(_ purchase: VerifiedPurchase, app: String, label: String) async throws -> StoreNotificationOutcome {
        let catalog = try await catalogs.state(app: app)
        switch try await purchases.apply(purchase, app: app, source: .notification, catalog: catalog) {
        case .applied(_, let events):
            return .processed("\(label) → \(purchase.lifecycle?.state.rawValue ?? (purchase.revocationDate == nil ? "purchase" : "revoked"))"
                              + (events.isEmpty ? "" : " (" + events.map(\.rawValue).joined(separator: ", ") + ")"))
        case .unchanged:
            return .ignored("\(label): Souk already holds this or a later statement")
        case .unknownPurchase:
            return .unmatched("\(label): \(kind.rawValue) transaction \(purchase.transactionId) was never reported to Souk")
        }
    }
}
