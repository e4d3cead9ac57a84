import AsyncHTTPClient
import Foundation
import SoukCore

/// Turns a Roku claim into a verdict. Roku can answer "entitled" with an expiry already past while a renewal
/// is still being charged; Souk keeps access (grace period of one day) and asks again within the hour
/// rather than cutting the customer off on a store lag.
public struct RokuStoreVerifier: StoreVerifier {
    public let store = CommerceStore.roku
    let settings: StoreSettingsProvider
    let client: RokuPayClient
    let now: @Sendable () -> Date

    public init(settings: @escaping StoreSettingsProvider, endpoints: StoreEndpoints, http: HTTPClient = .shared,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.client = RokuPayClient(endpoints: endpoints, http: http)
        self.now = now
    }

    public func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
        guard let roku = try await settings(claim.app)?.roku else {
            return .refused(PurchaseRefusal("store-not-configured", "Roku is not configured for app \(claim.app)."))
        }
        guard let reference = roku.partnerApiKey else {
            throw StoreFault(.notConfigured, "Roku has no partner API key configured for app \(claim.app).")
        }
        let key: String
        do { key = try reference.resolve() } catch {
            throw StoreFault(.notConfigured, "The Roku partner API key for app \(claim.app) cannot be read (\(reference.description)).")
        }
        switch try await client.validateTransaction(partnerAPIKey: key, transactionId: claim.transactionId) {
        case .unknownTransaction: return .refused(.invalidReceipt("Roku does not know this transaction."))
        case .transaction(let transaction):
            if let status = transaction.purchaseStatus, status.lowercased().hasPrefix("pending") {
                throw StoreFault(.pendingAtStore, "Roku has not completed this purchase yet (\(status)).")
            }
            return .verified(purchase(transaction, claim: claim))
        }
    }

    func purchase(_ transaction: RokuTransaction, claim: PurchaseClaim) -> VerifiedPurchase {
        let now = now()
        let isSubscription = transaction.expirationDate != nil || claim.productType == .autoRenewable
        var lifecycle: StoreLifecycle?
        if isSubscription {
            let expiry = transaction.expirationDate ?? .distantPast
            if transaction.refundDate != nil {
                lifecycle = StoreLifecycle(state: .revoked, willRenew: false)
            } else if !transaction.isEntitled {
                lifecycle = StoreLifecycle(state: .expired, willRenew: false)
            } else if expiry > now {
                lifecycle = transaction.cancelled
                    ? StoreLifecycle(state: .cancelled, willRenew: false, recheckAt: expiry)
                    : StoreLifecycle(state: .active, willRenew: true, recheckAt: expiry)
            } else {
                lifecycle = StoreLifecycle(state: .gracePeriod, willRenew: !transaction.cancelled,
                                           graceExpiresDate: now.addingTimeInterval(86_400), recheckAt: now.addingTimeInterval(3_600))
            }
        }
        let purchased = transaction.purchaseDate ?? now
        var verified = VerifiedPurchase(store: .roku, transactionId: transaction.transactionId,
                                originalTransactionId: transaction.originalTransactionId ?? transaction.transactionId,
                                storeProductId: transaction.productId.isEmpty ? (transaction.productCode ?? "") : transaction.productId,
                                type: isSubscription ? .autoRenewable : claim.productType, purchaseDate: purchased,
                                originalPurchaseDate: transaction.originalPurchaseDate ?? purchased,
                                expiresDate: transaction.expirationDate, revocationDate: transaction.refundDate,
                                revocationReason: transaction.refundDate == nil ? nil : "refund", quantity: transaction.quantity,
                                environment: transaction.isTest ? .sandbox : .production, app: claim.app, signedDate: now,
                                lifecycle: lifecycle, storeReference: transaction.transactionId)
        verified.price = transaction.priceMilliunits
        verified.currency = transaction.priceMilliunits == nil ? nil : transaction.currency
        return verified
    }
}
