import Foundation
import SoukCore

/// What reconciliation asks Apple, with the app's In-App Purchase key. Unlike
/// intake's optional enrichment, a fault here throws (`StoreFault`): a re-check that got no answer
/// is asked again later, never read as "nothing changed".
extension AppleStoreVerifier {
    /// The subscription as Apple holds it now (Get All Subscription Statuses): its latest
    /// transaction — a renewal Souk may not have heard of — with status and renewal info, verified.
    public func currentSubscription(app: String, originalTransactionId: String, environment: CommerceEnvironment) async throws -> StoreVerdict {
        let (credentials, bundleId) = try await credentials(app: app)
        guard let api, let credentials else { return Self.noKey(app) }
        let statuses: AppleSubscriptionStatuses
        switch try await api.subscriptionStatuses(originalTransactionId, environment: environment, credentials: credentials) {
        case .notFound: return .refused(.invalidReceipt("The App Store knows no subscription with this transaction id."))
        case .invalid(let code, _): return .refused(.invalidReceipt("The App Store refused the transaction id (errorCode \(code.map(String.init) ?? "none"))."))
        case .found(let found): statuses = found
        }
        guard let last = statuses.lastTransaction(originalTransactionId: originalTransactionId), let signed = last.signedTransactionInfo else {
            return .refused(.invalidReceipt("The App Store lists no transaction of this subscription."))
        }
        var renewal: AppleRenewalInfoPayload?
        if let signedRenewal = last.signedRenewalInfo {
            switch await verifier.verifyRenewalInfo(signedRenewal, environments: [environment]) {
            case .invalid(let failure): return .refused(Self.refusal(for: failure))
            case .valid(let payload): renewal = payload
            }
        }
        switch await verifier.verifyTransaction(signed, bundleId: bundleId, environments: [environment]) {
        case .invalid(let failure):
            return .refused(Self.refusal(for: failure))
        case .valid(let transaction):
            guard case .verified(var purchase) = Self.purchase(from: transaction) else { return Self.purchase(from: transaction) }
            purchase.lifecycle = AppleLifecycle.lifecycle(transaction: transaction, renewal: renewal, status: last.status, now: now())
            return .verified(purchase)
        }
    }

    /// Every transaction Apple holds for the customer of `transactionId` (Get Transaction History,
    /// paged by `revision`) and then every refunded or revoked one (Get Refund History), each
    /// verified, oldest purchase first. Transactions that do not verify are left out.
    public func customerHistory(app: String, transactionId: String, environment: CommerceEnvironment) async throws -> [VerifiedPurchase] {
        let (credentials, bundleId) = try await credentials(app: app)
        guard let api, let credentials else { throw StoreFault(.notConfigured, "App \(app) has no In-App Purchase key (keyId, issuerId, privateKey).") }
        var purchases: [VerifiedPurchase] = []
        for signed in try await api.allHistory(transactionId, environment: environment, credentials: credentials) {
            guard case .valid(let transaction) = await verifier.verifyTransaction(signed, bundleId: bundleId, environments: [environment]),
                  case .verified(let purchase) = Self.purchase(from: transaction) else { continue }
            purchases.append(purchase)
        }
        purchases.sort { $0.purchaseDate < $1.purchaseDate }
        for signed in try await api.refundLookup(transactionId, environment: environment, credentials: credentials) {
            guard case .valid(let transaction) = await verifier.verifyTransaction(signed, bundleId: bundleId, environments: [environment]),
                  case .verified(var purchase) = Self.purchase(from: transaction) else { continue }
            // A prorated refund is in the refund history too; the customer keeps access then.
            if purchase.revocationDate == nil, !transaction.isPartialRefund { purchase.revocationDate = purchase.signedDate }
            purchases.append(purchase)
        }
        return purchases
    }

    func credentials(app: String) async throws -> (AppStoreServerAPIClient.Credentials?, String) {
        let apple = try await appleSettings(for: app)
        return (try AppStoreServerAPIClient.Credentials.configured(in: apple, app: app), apple?.bundleId ?? app)
    }

    static func noKey(_ app: String) -> StoreVerdict {
        .refused(PurchaseRefusal("store-not-configured", "Re-reading App Store subscriptions needs the In-App Purchase key of app \(app)."))
    }
}
