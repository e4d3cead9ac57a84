import AsyncHTTPClient
import Foundation
import SoukCore

/// Turns an Amazon claim into a verdict. Amazon keeps one receipt across a subscription's renewals, so the
/// receipt id is both the transaction id and the original transaction id.
public struct AmazonStoreVerifier: StoreVerifier {
    public let store = CommerceStore.amazon
    let settings: StoreSettingsProvider
    let client: AmazonRVSClient
    let now: @Sendable () -> Date

    public init(settings: @escaping StoreSettingsProvider, endpoints: StoreEndpoints, http: HTTPClient = .shared,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.client = AmazonRVSClient(endpoints: endpoints, http: http)
        self.now = now
    }

    public func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
        guard let amazon = try await settings(claim.app)?.amazon else {
            return .refused(PurchaseRefusal("store-not-configured", "Amazon is not configured for app \(claim.app)."))
        }
        guard let userId = claim.userId, !userId.isEmpty else {
            return .refused(PurchaseRefusal("missing-user-id", "An Amazon purchase needs the Amazon userId."))
        }
        guard let reference = amazon.sharedSecret else {
            throw StoreFault(.notConfigured, "Amazon has no shared secret configured for app \(claim.app).")
        }
        let secret: String
        do { secret = try reference.resolve() } catch {
            throw StoreFault(.notConfigured, "The Amazon shared secret for app \(claim.app) cannot be read (\(reference.description)).")
        }
        let sandbox = claim.accountIsSandbox || amazon.sandbox
        switch try await client.verifyReceipt(sharedSecret: secret, userId: userId, receiptId: claim.transactionId, sandbox: sandbox) {
        case .invalidTransaction: return .refused(PurchaseRefusal("invalid-transaction", "Amazon does not know this receipt id (400)."))
        case .invalidUser: return .refused(PurchaseRefusal("invalid-user", "Amazon does not know this user id (497)."))
        case .invalidReceipt: return .refused(.invalidReceipt("Amazon says the receipt is not valid (498)."))
        case .receipt(let receipt): return .verified(purchase(receipt, claim: claim, sandbox: sandbox))
        }
    }

    /// RVS `cancelReason` 0 is a cancellation by Amazon customer service (a refund); 1 is a system cancellation
    /// (payment failure), 2 the customer's own. Only 0 is treated as a revocation — a refund takes access away
    /// at once; the others simply end the subscription.
    static let revokingCancelReasons: Set<Int> = [0]

    func purchase(_ receipt: AmazonReceipt, claim: PurchaseClaim, sandbox: Bool) -> VerifiedPurchase {
        let now = now()
        let type: ProductType? = switch receipt.productType {
        case "SUBSCRIPTION": .autoRenewable
        case "CONSUMABLE": .consumable
        case "ENTITLED": .nonConsumable
        default: claim.productType
        }
        var lifecycle: StoreLifecycle?
        var revocationDate: Date?
        var revocationReason: String?
        // For a subscription the term SKU is what the catalog sells (the parent productId names the family).
        var productId = receipt.productId
        if type == .autoRenewable {
            productId = receipt.termSku ?? receipt.productId
            let trial = receipt.freeTrialEndDate.map { $0 > now } ?? false
            let period: PeriodType = trial ? .trial : .normal
            if let cancel = receipt.cancelDate, cancel <= now {
                if let reason = receipt.cancelReason, Self.revokingCancelReasons.contains(reason) {
                    revocationDate = cancel
                    revocationReason = "cancelReason \(reason)"
                    lifecycle = StoreLifecycle(state: .revoked, willRenew: false, periodType: period)
                } else {
                    lifecycle = StoreLifecycle(state: .expired, willRenew: false, periodType: period)
                }
            } else if let grace = receipt.gracePeriodEndDate, grace > now, receipt.renewalDate.map({ $0 <= now }) ?? true {
                // RVS also echoes gracePeriodEndDate on healthy subscriptions (often equal to renewalDate), so grace
                // means: the renewal date has passed and the grace end is still ahead.
                lifecycle = StoreLifecycle(state: .gracePeriod, willRenew: receipt.autoRenewing, graceExpiresDate: grace,
                                           periodType: period, recheckAt: grace)
            } else if receipt.autoRenewing == false || receipt.cancelDate != nil {
                lifecycle = StoreLifecycle(state: .cancelled, willRenew: false, periodType: period, recheckAt: receipt.cancelDate ?? receipt.renewalDate)
            } else {
                lifecycle = StoreLifecycle(state: .active, willRenew: receipt.autoRenewing ?? true, periodType: period, recheckAt: receipt.renewalDate)
            }
        } else if let cancel = receipt.cancelDate {
            revocationDate = cancel
            revocationReason = receipt.cancelReason.map { "cancelReason \($0)" } ?? "cancelled"
        }
        let purchased = receipt.purchaseDate ?? now
        return VerifiedPurchase(store: .amazon, transactionId: receipt.receiptId, originalTransactionId: receipt.receiptId,
                                storeProductId: productId, type: type, purchaseDate: purchased, originalPurchaseDate: purchased,
                                expiresDate: type == .autoRenewable ? (receipt.cancelDate ?? receipt.renewalDate) : nil,
                                revocationDate: revocationDate, revocationReason: revocationReason, quantity: receipt.quantity,
                                environment: (receipt.testTransaction || sandbox) ? .sandbox : .production, app: claim.app,
                                signedDate: now, lifecycle: lifecycle, storeReference: receipt.receiptId)
    }
}
