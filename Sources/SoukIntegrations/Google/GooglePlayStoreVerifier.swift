import AsyncHTTPClient
import Crypto
import Foundation
import SoukCore

/// Turns a Google Play claim into a verdict by asking the Android Publisher API, and acknowledges and
/// consumes purchases there. The claim's `receipt` is Play Billing's purchase JSON (`purchaseToken`,
/// `productId`, `packageName`, `orderId`; a `{"json": "…"}` wrapper as some SDKs send is unwrapped) or the
/// bare purchase token; its `transactionId` is the order id, used only when Google gives none.
///
/// Which endpoint: the catalog's type decides (consumable / non-consumable → `purchases.productsv2`, falling
/// back to `purchases.products` where Google does not answer v2,
/// auto-renewable → `purchases.subscriptionsv2`). Without a type (restore) or for non-renewing (Google
/// sells those as prepaid subscription plans or as products), the purchase JSON's `autoRenewing` key —
/// present only on subscriptions — picks the first endpoint, and a 400/404/410 there tries the other.
///
/// One token cache serves every app's service account, so the verifier should live as long as the
/// process (one per server).
public struct GooglePlayStoreVerifier: StoreVerifier {
    public let store = CommerceStore.googlePlay
    let settings: StoreSettingsProvider
    let endpoints: StoreEndpoints
    let http: StoreHTTPClient
    let tokens: GoogleAccessTokens
    let now: @Sendable () -> Date

    public init(settings: @escaping StoreSettingsProvider, endpoints: StoreEndpoints, http: HTTPClient = .shared,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.endpoints = endpoints
        self.http = StoreHTTPClient(http: http, retry: endpoints.retry)
        self.tokens = GoogleAccessTokens(tokenURL: endpoints.googleOAuthTokenURL, http: self.http, now: now)
        self.now = now
    }

    // MARK: Verify

    public func verify(_ claim: PurchaseClaim) async throws -> StoreVerdict {
        guard let google = try await settings(claim.app)?.googlePlay else {
            return .refused(PurchaseRefusal("store-not-configured", "Google Play is not configured for app \(claim.app)."))
        }
        let (package, client) = try connect(google, app: claim.app)
        let receipt: GooglePurchaseReceipt
        switch GooglePurchaseReceipt.parse(claim.receipt) {
        case .success(let parsed): receipt = parsed
        case .failure(let refusal): return .refused(refusal)
        }
        if let claimed = receipt.packageName, claimed != package {
            return .refused(.wrongApp("The purchase belongs to package \(claimed), not \(package)."))
        }
        let productId = receipt.productId ?? claim.storeProductId
        var lastRejection: (status: Int, reason: String?) = (404, nil)
        for endpoint in order(claim.productType, receipt: receipt) {
            switch endpoint {
            case .subscription:
                switch try await client.subscriptionV2(package: package, token: receipt.token) {
                case .found(let subscription):
                    return try subscriptionVerdict(subscription, claim: claim, receipt: receipt, package: package)
                case .rejected(let status, let reason): lastRejection = (status, reason)
                }
            case .product:
                switch try await readProduct(client, package: package, productId: productId, claim: claim, receipt: receipt) {
                case .found(let purchase): return .verified(purchase)
                case .rejected(let status, let reason): lastRejection = (status, reason)
                }
            }
        }
        let reason = lastRejection.reason.map { ", \($0)" } ?? ""
        return .refused(.invalidReceipt("Google Play does not know this purchase for package \(package) (\(lastRejection.status)\(reason))."))
    }

    enum Endpoint { case product, subscription }

    func order(_ type: ProductType?, receipt: GooglePurchaseReceipt) -> [Endpoint] {
        switch type {
        case .consumable?, .nonConsumable?: return [.product]
        case .autoRenewable?: return [.subscription]
        case .nonRenewing?, nil: return receipt.isSubscription == false ? [.product, .subscription] : [.subscription, .product]
        }
    }

    /// The settings' package and a client for its service account. The key file is read on every call,
    /// so a rotated key is used at once (its token is cached under its own key id).
    func connect(_ google: GooglePlaySettings, app: String) throws(StoreFault) -> (String, GooglePlayClient) {
        guard let package = google.packageName, !package.isEmpty else {
            throw StoreFault(.notConfigured, "Google Play has no packageName configured for app \(app).")
        }
        guard let reference = google.serviceAccount else {
            throw StoreFault(.notConfigured, "Google Play has no service account configured for app \(app).")
        }
        let text: String
        do { text = try reference.resolve() } catch {
            throw StoreFault(.notConfigured, "The Google service-account key for app \(app) cannot be read (\(reference.description)).")
        }
        let account = try GoogleServiceAccount.parse(Array(text.utf8))
        return (package, GooglePlayClient(baseURL: endpoints.googlePlayBaseURL, http: http, tokens: tokens, account: account))
    }

    func settingsOrFault(_ app: String) async throws(StoreFault) -> GooglePlaySettings {
        let google: GooglePlaySettings?
        do { google = try await settings(app)?.googlePlay } catch {
            throw StoreFault(.notConfigured, "The store settings of app \(app) cannot be read.")
        }
        guard let google else { throw StoreFault(.notConfigured, "Google Play is not configured for app \(app).") }
        return google
    }

    // MARK: One-time products

    /// `purchases.products` → purchase. transactionId and originalTransactionId are the order id (Google
    /// gives none for some licence-tester purchases: then the claim's, else an id derived from the token);
    /// purchaseType 0 (licence tester) is Sandbox. purchaseState 1 (cancelled: refunded or charged back)
    /// is verified with a revocation — Google says no when, so the moment Souk learns it is used.
    /// `consumed` is only said for what may be a consumable (nil for a catalog non-consumable).
    func productPurchase(_ product: GoogleProductPurchase, productId: String, claim: PurchaseClaim,
                         receipt: GooglePurchaseReceipt, package: String) throws(StoreFault) -> VerifiedPurchase {
        let now = now()
        if product.purchaseState == 2 {
            throw StoreFault(.pendingAtStore, "The Google Play purchase of \(productId) is still pending payment.")
        }
        let orderId = Self.nonEmpty(product.orderId) ?? receipt.orderId ?? Self.claimedOrderId(claim, receipt) ?? Self.tokenId(receipt.token)
        let purchased = product.purchaseTimeMillis.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now
        let cancelled = product.purchaseState == 1
        var verified = VerifiedPurchase(store: .googlePlay, transactionId: orderId, originalTransactionId: orderId,
                                        storeProductId: Self.nonEmpty(product.productId) ?? productId, type: claim.productType,
                                        purchaseDate: purchased, originalPurchaseDate: purchased,
                                        revocationDate: cancelled ? now : nil, revocationReason: cancelled ? "purchaseState 1" : nil,
                                        quantity: max(1, product.quantity ?? 1),
                                        environment: product.purchaseType == 0 ? .sandbox : .production, app: claim.app, signedDate: now,
                                        appAccountToken: Self.nonEmpty(product.obfuscatedExternalAccountId), storeReference: receipt.token,
                                        acknowledged: product.acknowledgementState == 1,
                                        consumed: claim.productType == .nonConsumable ? nil : product.consumptionState == 1)
        // `regionCode`: the ISO 3166-1 alpha-2 billing region of the buyer when the product was granted.
        verified.country = CountryCode.normalized(product.regionCode)
        return verified
    }

    // MARK: Subscriptions

    /// `purchases.subscriptionsv2` → purchase. The line item is the one for the claimed product when there
    /// are several, else the first. transactionId is its latest successful order id (renewals end `..N`),
    /// originalTransactionId that id without the suffix, so every renewal ties to the first order.
    /// purchaseDate is `startTime` (v2 does not say when the current period began). Sandbox when
    /// `testPurchase` is present. A revocation is not visible in v2 (a revoked subscription reads EXPIRED):
    /// RTDN's SUBSCRIPTION_REVOKED and voided-purchase notifications say it.
    func subscriptionVerdict(_ subscription: GoogleSubscriptionPurchaseV2, claim: PurchaseClaim, receipt: GooglePurchaseReceipt,
                             package: String) throws(StoreFault) -> StoreVerdict {
        let now = now()
        let items = subscription.lineItems ?? []
        let state = subscription.subscriptionState ?? "SUBSCRIPTION_STATE_UNSPECIFIED"
        if state == "SUBSCRIPTION_STATE_PENDING" {
            throw StoreFault(.pendingAtStore, "The Google Play subscription is still pending payment.")
        }
        if state == "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED" {
            return .refused(PurchaseRefusal("purchase-cancelled", "The pending Google Play subscription purchase was cancelled before it was paid."))
        }
        guard let item = items.first(where: { $0.productId == claim.storeProductId }) ?? items.first,
              let productId = Self.nonEmpty(item.productId) else {
            throw StoreFault(.unavailable, "Google answered a subscription without line items.")
        }
        let expires = items.compactMap { GoogleTime.parse($0.expiryTime) }.max()
        let prepaid = item.autoRenewingPlan == nil && item.prepaidPlan != nil
        let autoRenew: Bool? = prepaid ? false : item.autoRenewingPlan?.autoRenewEnabled
        let lifecycleState: SubscriptionState
        var willRenew = autoRenew
        var grace: Date?
        switch state {
        case "SUBSCRIPTION_STATE_ACTIVE": lifecycleState = .active
        case "SUBSCRIPTION_STATE_CANCELED": lifecycleState = .cancelled; willRenew = false
        case "SUBSCRIPTION_STATE_IN_GRACE_PERIOD": lifecycleState = .gracePeriod; grace = expires
        case "SUBSCRIPTION_STATE_ON_HOLD": lifecycleState = .billingRetry
        case "SUBSCRIPTION_STATE_PAUSED": lifecycleState = .paused
        case "SUBSCRIPTION_STATE_EXPIRED": lifecycleState = .expired; willRenew = false
        default:
            // An unknown state must not grant or take access by guess: the purchase waits and is read again.
            throw StoreFault(.unavailable, "Google answered a subscription state Souk does not know (\(GoogleAccessTokens.safeCode(state) ?? "unreadable")).")
        }
        let order = Self.nonEmpty(item.latestSuccessfulOrderId) ?? items.lazy.compactMap({ Self.nonEmpty($0.latestSuccessfulOrderId) }).first
            ?? Self.nonEmpty(subscription.latestOrderId) ?? receipt.orderId ?? Self.claimedOrderId(claim, receipt) ?? Self.tokenId(receipt.token)
        let started = GoogleTime.parse(subscription.startTime) ?? now
        let nextProduct = willRenew == true ? (Self.nonEmpty(item.deferredItemReplacement?.productId) ?? productId) : nil
        let lifecycle = StoreLifecycle(state: lifecycleState, willRenew: willRenew, graceExpiresDate: grace,
                                       periodType: Self.periodType(item), autoRenewStoreProductId: nextProduct, recheckAt: expires)
        var verified = VerifiedPurchase(
            store: .googlePlay, transactionId: order, originalTransactionId: Self.originalOrderId(order), storeProductId: productId,
            type: prepaid ? .nonRenewing : .autoRenewable, purchaseDate: started, originalPurchaseDate: started, expiresDate: expires,
            environment: subscription.testPurchase != nil ? .sandbox : .production, app: claim.app, signedDate: now,
            appAccountToken: Self.nonEmpty(subscription.externalAccountIdentifiers?.obfuscatedExternalAccountId), lifecycle: lifecycle,
            storeReference: receipt.token, linkedStoreReference: Self.nonEmpty(subscription.linkedPurchaseToken),
            acknowledged: subscription.acknowledgementState == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")
        // Google states only the plan's recurring price: it is what a period at the base price
        // costs, not what a trial or an introductory phase cost, so only the base phase gets it.
        if lifecycle.periodType == .normal, let money = item.autoRenewingPlan?.recurringPrice, let milli = money.milliunits {
            verified.price = milli
            verified.currency = money.currencyCode?.uppercased()
        }
        // `regionCode`: the ISO 3166-1 alpha-2 billing region of the buyer when the subscription was granted.
        verified.country = CountryCode.normalized(subscription.regionCode)
        return .verified(verified)
    }

    /// `offerPhase` when Google sends it; otherwise the offer's tags, by the naming Play Console suggests
    /// (`free-trial`, `intro…`); otherwise a normal period.
    static func periodType(_ item: GoogleSubscriptionPurchaseV2.LineItem) -> PeriodType {
        if let phase = item.offerPhase {
            if phase.freeTrial != nil { return .trial }
            if phase.introductoryPrice != nil { return .intro }
            return .normal
        }
        let tags = (item.offerDetails?.offerTags ?? []).map { $0.lowercased() }
        if tags.contains(where: { $0.contains("trial") }) { return .trial }
        if tags.contains(where: { $0.contains("intro") }) { return .intro }
        return .normal
    }

    /// `GPA.1234-5678-9012-34567..3` → `GPA.1234-5678-9012-34567` (a renewal's order id is the first
    /// order's id followed by `..` and the renewal's number).
    static func originalOrderId(_ orderId: String) -> String {
        guard let range = orderId.range(of: "..", options: .backwards),
              !orderId[range.upperBound...].isEmpty, orderId[range.upperBound...].allSatisfy(\.isNumber) else { return orderId }
        return String(orderId[..<range.lowerBound])
    }

    /// A stable id for a purchase Google gave no order id for: the token itself is a secret to keep out of
    /// ids and logs, so a digest of it stands in.
    static func tokenId(_ token: String) -> String {
        "GPT." + SHA256.hash(data: Data(token.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The claim's transaction id as an order id fallback — unless it is the purchase token itself (a claim
    /// rebuilt from a notification may carry the token there), which must never become an id.
    static func claimedOrderId(_ claim: PurchaseClaim, _ receipt: GooglePurchaseReceipt) -> String? {
        guard let id = nonEmpty(claim.transactionId), id != receipt.token else { return nil }
        return id
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    // MARK: Acknowledge and consume

    /// Acknowledges a purchase at Google (the durable acknowledgement queue calls this; Google refunds what
    /// is not acknowledged within 3 days). Idempotent: when Google refuses because the purchase is already
    /// acknowledged, the purchase is read again and that is success. A purchase still pending throws
    /// `.pendingAtStore`; one Google does not know throws `.unavailable` naming it (the queue gives up on
    /// its own schedule).
    public func acknowledge(app: String, storeProductId: String, purchaseToken: String, type: ProductType) async throws(StoreFault) {
        let (package, client) = try connect(try await settingsOrFault(app), app: app)
        switch type {
        case .autoRenewable, .nonRenewing:
            let answer = try await client.acknowledgeSubscription(package: package, subscriptionId: storeProductId, token: purchaseToken)
            guard case .rejected(let status, let reason) = answer else { return }
            switch try await client.subscriptionV2(package: package, token: purchaseToken) {
            case .found(let subscription):
                if subscription.acknowledgementState == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" { return }
                if subscription.subscriptionState == "SUBSCRIPTION_STATE_PENDING" {
                    throw StoreFault(.pendingAtStore, "The Google Play subscription \(storeProductId) is still pending; it is acknowledged once paid.")
                }
                throw Self.refusedFault("acknowledge the subscription \(storeProductId)", status: status, reason: reason)
            case .rejected(let status, let reason):
                throw Self.refusedFault("acknowledge the subscription \(storeProductId): it is unknown", status: status, reason: reason)
            }
        case .consumable, .nonConsumable:
            let answer = try await client.acknowledgeProduct(package: package, productId: storeProductId, token: purchaseToken)
            guard case .rejected(let status, let reason) = answer else { return }
            let product = try await reread(client, package: package, productId: storeProductId, token: purchaseToken, action: "acknowledge")
            if product.acknowledgementState == 1 { return }
            throw Self.refusedFault("acknowledge \(storeProductId)", status: status, reason: reason)
        }
    }

    /// Consumes a consumable at Google once it is granted, so the person can buy it again. Idempotent: a
    /// purchase already consumed is success.
    public func consume(app: String, storeProductId: String, purchaseToken: String) async throws(StoreFault) {
        let (package, client) = try connect(try await settingsOrFault(app), app: app)
        let answer = try await client.consumeProduct(package: package, productId: storeProductId, token: purchaseToken)
        guard case .rejected(let status, let reason) = answer else { return }
        let product = try await reread(client, package: package, productId: storeProductId, token: purchaseToken, action: "consume")
        if product.consumptionState == 1 { return }
        throw Self.refusedFault("consume \(storeProductId)", status: status, reason: reason)
    }

    func reread(_ client: GooglePlayClient, package: String, productId: String, token: String,
                action: String) async throws(StoreFault) -> GoogleProductPurchase {
        switch try await client.productPurchase(package: package, productId: productId, token: token) {
        case .found(let product):
            if product.purchaseState == 2 {
                throw StoreFault(.pendingAtStore, "The Google Play purchase of \(productId) is still pending; \(action) waits until it is paid.")
            }
            return product
        case .rejected(let status, let reason):
            throw Self.refusedFault("\(action) \(productId): the purchase is unknown", status: status, reason: reason)
        }
    }

    static func refusedFault(_ what: String, status: Int, reason: String?) -> StoreFault {
        StoreFault(.unavailable, "Google Play refused to \(what) (\(status)\(reason.map { ", \($0)" } ?? "")).")
    }
}

/// What the app sent as `receipt`, read without trusting it: only the token is used to ask Google; the
/// package name is compared with the app's, the product id picks the endpoint's path.
struct GooglePurchaseReceipt: Sendable, Equatable {
    var token: String
    var productId: String?
    var packageName: String?
    var orderId: String?
    /// true: the JSON has `autoRenewing` (subscriptions only); false: JSON without it; nil: a bare token.
    var isSubscription: Bool?

    struct Fields: Decodable {
        var purchaseToken: String?
        var token: String?
        var productId: String?
        var productIds: [String]?
        var packageName: String?
        var orderId: String?
        var autoRenewing: Bool?
        var json: String?
    }

    static func parse(_ receipt: String) -> Result<GooglePurchaseReceipt, PurchaseRefusal> {
        let text = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            return .failure(.invalidReceipt("A Google Play purchase needs its purchase JSON or purchase token in receipt."))
        }
        guard text.hasPrefix("{") else {
            guard text.unicodeScalars.allSatisfy({ $0.isASCII && !CharacterSet.whitespacesAndNewlines.contains($0) }) else {
                return .failure(.invalidReceipt("The Google Play receipt is neither purchase JSON nor a purchase token."))
            }
            return .success(GooglePurchaseReceipt(token: text))
        }
        guard var fields = try? JSONDecoder().decode(Fields.self, from: Data(text.utf8)) else {
            return .failure(.invalidReceipt("The Google Play purchase JSON cannot be read."))
        }
        if fields.purchaseToken == nil, let inner = fields.json,
           let unwrapped = try? JSONDecoder().decode(Fields.self, from: Data(inner.utf8)) {
            fields = unwrapped
        }
        guard let token = fields.purchaseToken ?? fields.token, !token.isEmpty else {
            return .failure(.invalidReceipt("The Google Play purchase JSON has no purchaseToken."))
        }
        return .success(GooglePurchaseReceipt(token: token, productId: fields.productId ?? fields.productIds?.first,
                                              packageName: fields.packageName, orderId: fields.orderId.flatMap { $0.isEmpty ? nil : $0 },
                                              isSubscription: fields.autoRenewing != nil))
    }
}
