import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Refunds a store purchase at its store, for `souk purchases refund` and the console's refund
/// button alike (operators only; the caller checks the role). Google Play is asked through
/// `orders.refund` (one-time products, `revoke=true`) or `purchases.subscriptionsv2.revoke`
/// (subscriptions, `fullRefund` or `proratedRefund`); then Google's read of the purchase says
/// whether it is refunded: if so, access ends now, otherwise when Google confirms it (its voided
/// purchase notification or the voided-purchases listing). No answer from Google, or a refusal,
/// changes nothing. The operation writes its own audit entry (`purchase.refund`) with the actor it
/// was given, once Google took the request.
public struct StoreRefunds: Sendable {
    package let purchases: PurchaseStore
    package let google: GooglePlayStoreVerifier?
    package let audit: AuditLog
    package let now: @Sendable () -> Date

    public init(purchases: PurchaseStore, google: GooglePlayStoreVerifier?, audit: AuditLog, now: @escaping @Sendable () -> Date = { Date() }) {
        self.purchases = purchases
        self.google = google
        self.audit = audit
        self.now = now
    }

    /// What a refund came to.
    public enum Outcome: Sendable, Equatable {
        /// Google took the request and reads the purchase as refunded: access ended. `method` is the call made.
        case revoked(StoredPurchase, method: String)
        /// Google took the request and does not read it as refunded yet: access ends when it confirms.
        case requested(StoredPurchase, method: String)
    }

    /// Why nothing was refunded.
    public struct Failure: Error, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// No such purchase (of this person).
            case notFound
            /// The purchase cannot be refunded here (another store, not granted, already revoked, no order id).
            case conflict
            /// The request does not fit the purchase (`--prorated` for a one-time product).
            case badRequest
            /// Google gave no answer: try again.
            case unavailable
            /// Google refused the request or Souk's credentials.
            case refused
        }
        public var kind: Kind
        public var message: String

        package init(_ kind: Kind, _ message: String) {
            self.kind = kind
            self.message = message
        }
    }

    /// Refunds the purchase `paymentId` at its store for `actor`: the one path of the operator's
    /// console and `souk purchases refund`. With `person` (the console's person page), `AccountScope`
    /// decides first (`refund`: operators, on a lower role; a refusal throws
    /// `PeopleOperationError.refused`) and the id selects only that person's purchase; a payment id
    /// alone is the server's operator's (a `souk` command). Writes `purchase.refund`.
    public func refund(_ paymentId: UUID, prorated: Bool = false, actor: SoukActor, of person: AccountRecord? = nil) async throws -> Result<Outcome, Failure> {
        switch (actor, person) {
        case (_, let person?): try await AccountScope(audit: audit).check(.refund, actor: actor, on: person)
        case (.cli, nil), (.system, nil): break
        default: throw PeopleOperationError.refused("A refund by payment id alone is the server operator's (souk purchases refund).")
        }
        guard let purchase = try await purchases.payment(paymentId), person == nil || purchase.accountId == person?.id else {
            return .failure(Failure(.notFound, "No purchase has the payment id \(paymentId.uuidString.lowercased())."))
        }
        guard purchase.store == .googlePlay else {
            return .failure(Failure(.conflict, "Only Google Play purchases are refunded from Souk; a \(purchase.store.rawValue) purchase is refunded at its store, which then tells Souk."))
        }
        guard purchase.status == .granted, purchase.revokedAt == nil else {
            let state = purchase.revokedAt != nil ? "already revoked" : purchase.status.rawValue
            return .failure(Failure(.conflict, "Only a granted purchase is refunded; this one is \(state)."))
        }
        guard let google, let token = purchase.storeReference else {
            return .failure(Failure(.conflict, "Souk cannot ask Google Play about this purchase (no Google verifier or no purchase token)."))
        }
        let subscription = purchase.productType == .autoRenewable || purchase.expiresDate != nil
        let request: GoogleRefundRequest
        if subscription {
            request = .subscription(token: token, prorated: prorated)
        } else {
            guard !prorated else {
                return .failure(Failure(.badRequest, "A prorated refund is for subscriptions; \(purchase.productId) is a one-time product."))
            }
            guard let order = purchase.transactionId, !order.hasPrefix("GPT.") else {
                return .failure(Failure(.conflict, "Google gave no order id for this purchase, so it cannot be refunded through orders.refund; refund it in Play Console."))
            }
            request = .order(orderId: order, productId: purchase.storeProductId, token: token)
        }
        let confirmed: Bool
        do {
            switch try await google.refund(app: purchase.app, request) {
            case .found:
                confirmed = (try? await google.confirmsRefund(app: purchase.app, request)) ?? false
            case .rejected(let status, let reason):
                // Refused, perhaps because it is refunded already (in Play Console, or by an earlier click): Google's read says.
                guard (try? await google.confirmsRefund(app: purchase.app, request)) == true else {
                    return .failure(Failure(.refused, "Google Play refused the refund (\(status)\(reason.map { ", \($0)" } ?? "")): nothing was refunded."))
                }
                confirmed = true
            }
        } catch {
            switch error.kind {
            case .unavailable, .rateLimited, .pendingAtStore:
                return .failure(Failure(.unavailable, "Google Play could not be reached: nothing was refunded. Try again in a moment."))
            case .credentials, .notConfigured:
                return .failure(Failure(.refused, "Google Play did not take Souk's request: nothing was refunded (\(error.detail))."))
            }
        }
        let at = now()
        if confirmed {
            try await purchases.revokeAtStore(app: purchase.app, store: .googlePlay, storeReference: token, transactionId: purchase.transactionId,
                                              activeAt: subscription ? at : nil, at: at, reason: prorated ? "refunded (prorated)" : "refunded",
                                              source: .operator)
        }
        var after = ["payment": paymentId.uuidString.lowercased(), "store": purchase.store.rawValue, "method": request.method,
                     "status": confirmed ? "revoked" : "requested"]
        if subscription { after["revocationContext"] = prorated ? "proratedRefund" : "fullRefund" }
        try await audit.record(actor: actor, action: .purchaseRefund, target: "account:\(purchase.accountId.uuidString.lowercased())",
                               before: ["payment": paymentId.uuidString.lowercased(), "product": purchase.productId, "status": purchase.status.rawValue],
                               after: after)
        let current = try await purchases.payment(paymentId) ?? purchase
        return .success(confirmed ? .revoked(current, method: request.method) : .requested(current, method: request.method))
    }
}
