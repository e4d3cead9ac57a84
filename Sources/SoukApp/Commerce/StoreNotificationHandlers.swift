import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// App Store Server Notifications V2 → the lifecycle. The stored body was
/// verified when it was received; it is verified again here (the payload sat in the database), then
/// `AppleNotificationInterpreter` reads type, subtype, transaction and renewal info into a
/// statement that `PurchaseStore.apply` records — in the order Apple signed them, each once.
public struct AppleNotificationHandler: StoreNotificationHandler {
    public let store = CommerceStore.appleStore.rawValue
    package let verifier: AppleSignedDataVerifier
    package let purchases: PurchaseStore
    package let catalogs: CommerceCatalogCache
    /// Where refund requests are recorded for the consumption worker; nil: they are only logged.
    package let consumption: AppleConsumptionStore?

    public init(verifier: AppleSignedDataVerifier, purchases: PurchaseStore, catalogs: CommerceCatalogCache,
                consumption: AppleConsumptionStore? = nil) {
        self.verifier = verifier
        self.purchases = purchases
        self.catalogs = catalogs
        self.consumption = consumption
    }

    package struct Envelope: Decodable {
        package var signedPayload: String
    }

    public func handle(_ notification: StoredStoreNotification) async throws -> StoreNotificationOutcome {
        let app = notification.received.app
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(notification.received.payload.utf8)) else {
            return .ignored("the stored body is not {\"signedPayload\": …}")
        }
        let payload: AppleNotificationPayload
        switch await verifier.verifySignedData(envelope.signedPayload, as: AppleNotificationPayload.self) {
        case .valid(let valid): payload = valid
        case .invalid(let failure): return .ignored("no longer verifies: \(failure.reason.rawValue)")
        }
        let effect: AppleNotificationEffect
        switch await AppleNotificationInterpreter.interpret(payload, verifier: verifier) {
        case .success(let read): effect = read
        case .failure(let failure): return .ignored("its transaction does not verify: \(failure.reason.rawValue)")
        }
        guard effect.known else { return .ignored(effect.summary) }
        let catalog = try await catalogs.state(app: app)
        var summary = effect.summary
        switch AppleNotificationType(rawValue: effect.type) {
        case .consumptionRequest?:
            summary += "; " + (try await recordRefundRequest(effect, notification: notification, catalog: catalog))
        case .rescindConsent?:
            let withdrawn = try await consumption?.rescind(app: app, originalTransactionId: effect.purchase?.originalTransactionId) ?? 0
            summary += "; consent rescinded" + (withdrawn > 0 ? ", \(withdrawn) refund request(s) left unanswered" : "")
        default:
            break
        }
        guard let purchase = effect.purchase else { return .processed(summary) }
        let outcome = try await purchases.apply(purchase, app: app, source: .notification, catalog: catalog, reinstates: effect.reinstates)
        if case .unknownPurchase = outcome {} else {
            try await purchases.recordAppleTerms(app: app, transactionId: purchase.transactionId, Self.terms(of: effect))
        }
        switch outcome {
        case .applied(_, let events):
            return .processed(summary + (events.isEmpty ? "" : " (" + events.map(\.rawValue).joined(separator: ", ") + ")"))
        case .unchanged:
            return .ignored(summary + "; Souk already holds this or a later statement")
        case .unknownPurchase:
            return .unmatched(summary + "; transaction \(purchase.transactionId) of \(purchase.originalTransactionId) was never reported to Souk")
        }
    }
}

/// Google Play real-time developer notifications → the lifecycle. RTDN says only
/// *that* a purchase changed: the purchase is read again from Google (`GooglePlayStoreVerifier`)
/// and that answer is applied. A voided purchase loses access at once.
public struct GoogleNotificationHandler: StoreNotificationHandler {
    public let store = CommerceStore.googlePlay.rawValue
    package let verifier: any StoreVerifier
    package let purchases: PurchaseStore
    package let catalogs: CommerceCatalogCache

    public init(verifier: any StoreVerifier, purchases: PurchaseStore, catalogs: CommerceCatalogCache) {
        self.verifier = verifier
        self.purchases = purchases
        self.catalogs = catalogs
    }

    public func handle(_ notification: StoredStoreNotification) async throws -> StoreNotificationOutcome {
        let app = notification.received.app
        let message: GoogleRTDNMessage
        do {
            message = try GoogleRTDNMessage.parse(Array(notification.received.payload.utf8))
        } catch {
            return .ignored("unreadable: \(error.description)")
        }
        let catalog = try await catalogs.state(app: app)
        switch message.kind {
        case .test:
            return .processed("test notification")
        case .other(let field):
            return .ignored("\(field) is a kind Souk does not handle")
        case .voided(_, _, _, 2?):
            // A quantity-based partial refund: RTDN does not say how many were refunded, so the purchase stays;
            // the voided-purchases listing (`voidedQuantity`) takes back what was refunded.
            return .processed("partial refund: its quantity is taken back by the voided-purchases listing")
        case .voided(let token, let orderId, let productType, _):
            // A voided subscription ends (the order named and whatever period is running); a one-time purchase is its token.
            let revoked = try await purchases.revokeAtStore(app: app, store: .googlePlay, storeReference: token, transactionId: orderId,
                                                            activeAt: productType == 1 || orderId == nil ? message.eventTime : nil,
                                                            at: message.eventTime, reason: "voided", source: .notification)
            guard !revoked.isEmpty else {
                let known = try await purchases.purchases(app: app, store: .googlePlay, storeReference: token)
                return known.isEmpty ? .unmatched("voided purchase was never reported to Souk") : .ignored("voided purchase already revoked")
            }
            return .processed("voided → revoked (\(revoked.count))")
        case .subscription(_, let name, let token, let subscriptionId):
            return try await refetch(app: app, token: token, sku: subscriptionId, type: .autoRenewable, label: name, catalog: catalog)
        case .oneTimeProduct(_, let name, let token, let sku):
            let type = catalog?.product(store: .googlePlay, sku: sku)?.type
            return try await refetch(app: app, token: token, sku: sku, type: type, label: name, catalog: catalog)
        }
    }

    /// Reads the purchase again and applies what Google says now. A fault throws (the worker retries).
    package func refetch(app: String, token: String, sku: String?, type: ProductType?, label: String, catalog: CommerceCatalogState?) async throws
        -> StoreNotificationOutcome {
        let claim = PurchaseClaim(store: .googlePlay, app: app, storeProductId: sku ?? "", transactionId: token, receipt: token, productType: type)
        switch try await verifier.verify(claim) {
        case .refused(let refusal):
            return .ignored("\(label): Google no longer gives this purchase (\(refusal.code))")
        case .verified(let purchase):
            switch try await purchases.apply(purchase, app: app, source: .notification, catalog: catalog) {
            case .applied(_, let events):
                return .processed("\(label) → \(purchase.lifecycle?.state.rawValue ?? "purchase")"
                                  + (events.isEmpty ? "" : " (" + events.map(\.rawValue).joined(separator: ", ") + ")"))
            case .unchanged:
                return .ignored("\(label): Souk already holds this or a later statement")
            case .unknownPurchase:
                return .unmatched("\(label): order \(purchase.transactionId) was never reported to Souk")
            }
        }
    }
}
