import Foundation
import SoukCore

/// What Souk asks Google to refund: a one-time purchase's order (`orders.refund`), or a subscription
/// by its purchase token (`purchases.subscriptionsv2.revoke`, in full or prorated).
public enum GoogleRefundRequest: Sendable, Equatable {
    case order(orderId: String, productId: String, token: String)
    case subscription(token: String, prorated: Bool)

    /// The Android Publisher method, for the audit log and the operator.
    public var method: String {
        switch self {
        case .order: "orders.refund"
        case .subscription: "purchases.subscriptionsv2.revoke"
        }
    }
}

/// Voided purchases, refunds and the read that confirms them.
extension GooglePlayStoreVerifier {
    /// Whether the app's settings let Souk call Google for it (a package and a service account).
    public func isConfigured(app: String) async -> Bool {
        guard let google = try? await settings(app)?.googlePlay else { return false }
        return google.packageName?.isEmpty == false && google.serviceAccount != nil
    }

    /// One page of the app's voided purchases since `startTimeMillis`; `.rejected` when Google
    /// refuses the query (a page token it no longer knows, a start beyond its 30 days).
    public func voidedPurchases(app: String, startTimeMillis: Int64,
                                token: String?) async throws(StoreFault) -> GoogleAnswer<GoogleVoidedPurchasePage> {
        let (package, client) = try connect(try await settingsOrFault(app), app: app)
        return try await client.voidedPurchases(package: package, startTimeMillis: startTimeMillis, token: token)
    }

    /// Asks Google to refund and revoke. `.found` when Google took the request; `.rejected` with
    /// Google's status and reason when it refused (an order already refunded, a subscription
    /// already revoked); throws when Google gave no answer.
    public func refund(app: String, _ request: GoogleRefundRequest) async throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        let (package, client) = try connect(try await settingsOrFault(app), app: app)
        switch request {
        case .order(let orderId, _, _):
            return try await client.refundOrder(package: package, orderId: orderId)
        case .subscription(let token, let prorated):
            return try await client.revokeSubscription(package: package, token: token, prorated: prorated)
        }
    }

    /// Whether Google now reads the purchase as refunded or revoked: a one-time purchase
    /// `CANCELLED` (v2) or purchaseState 1 (v1), a subscription `SUBSCRIPTION_STATE_EXPIRED` (a
    /// revoked subscription reads expired in v2). A purchase Google no longer knows is not taken
    /// as confirmation.
    public func confirmsRefund(app: String, _ request: GoogleRefundRequest) async throws(StoreFault) -> Bool {
        let (package, client) = try connect(try await settingsOrFault(app), app: app)
        switch request {
        case .subscription(let token, _):
            guard case .found(let subscription) = try await client.subscriptionV2(package: package, token: token) else { return false }
            return subscription.subscriptionState == "SUBSCRIPTION_STATE_EXPIRED"
        case .order(_, let productId, let token):
            if case .found(let product) = try await client.productPurchaseV2(package: package, token: token) {
                return product.purchaseStateContext?.purchaseState == "CANCELLED"
            }
            guard case .found(let product) = try await client.productPurchase(package: package, productId: productId, token: token) else {
                return false
            }
            return product.purchaseState == 1
        }
    }
}
