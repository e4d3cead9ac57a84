import Foundation
import HTTPTypes
import Hummingbird

/// A voided purchase as the fake Play lists it (`VoidedPurchase`).
public struct FakeGoogleVoided: Sendable, Equatable {
    public var purchaseToken: String
    public var orderId: String?
    public var purchaseTime: Date
    public var voidedTime: Date
    /// 0 user, 1 developer, 2 Google.
    public var voidedSource: Int
    /// 0 other … 7 chargeback.
    public var voidedReason: Int
    /// Set for a quantity-based partial refund.
    public var voidedQuantity: Int?
    /// Listed only with `type=1`.
    public var subscription: Bool

    public init(purchaseToken: String, orderId: String?, purchaseTime: Date, voidedTime: Date, voidedSource: Int = 0, voidedReason: Int = 0,
                voidedQuantity: Int? = nil, subscription: Bool = false) {
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.purchaseTime = purchaseTime
        self.voidedTime = voidedTime
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.voidedQuantity = voidedQuantity
        self.subscription = subscription
    }

    var json: [String: any Sendable] {
        // As Google's reference shows it: int64 fields as JSON strings, the enums as numbers.
        var json: [String: any Sendable] = [
            "kind": "androidpublisher#voidedPurchase", "purchaseToken": purchaseToken,
            "purchaseTimeMillis": String(Int64(purchaseTime.timeIntervalSince1970 * 1000)),
            "voidedTimeMillis": String(Int64(voidedTime.timeIntervalSince1970 * 1000)),
            "voidedSource": voidedSource, "voidedReason": voidedReason,
        ]
        if let orderId { json["orderId"] = orderId }
        if let voidedQuantity { json["voidedQuantity"] = voidedQuantity }
        return json
    }
}

extension FakeGoogleProduct {
    /// `ProductPurchaseV2`.
    var v2json: [String: any Sendable] {
        var offer: [String: any Sendable] = [
            "quantity": quantity, "refundableQuantity": refundableQuantity ?? (purchaseState == 1 ? 0 : quantity),
            "consumptionState": consumptionState == 1 ? "CONSUMPTION_STATE_CONSUMED" : "CONSUMPTION_STATE_YET_TO_BE_CONSUMED",
        ]
        if let purchaseOptionId { offer["purchaseOptionId"] = purchaseOptionId }
        if let offerId { offer["offerId"] = offerId }
        let state = [0: "PURCHASED", 1: "CANCELLED", 2: "PENDING"][purchaseState] ?? "PURCHASE_STATE_UNSPECIFIED"
        var json: [String: any Sendable] = [
            "kind": "androidpublisher#productPurchaseV2", "regionCode": "DE",
            "productLineItem": [["productId": productId, "productOfferDetails": offer] as [String: any Sendable]],
            "purchaseStateContext": ["purchaseState": state] as [String: any Sendable],
            "purchaseCompletionTime": FakeGoogleSubscription.time(purchaseTime),
            "acknowledgementState": acknowledgementState == 1 ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING",
        ]
        if let orderId { json["orderId"] = orderId }
        if purchaseType == 0 { json["testPurchaseContext"] = ["fopType": "TEST"] as [String: any Sendable] }
        if let obfuscatedExternalAccountId { json["obfuscatedExternalAccountId"] = obfuscatedExternalAccountId }
        return json
    }
}

/// Voided purchases, refunds and one-time products v2, as the Android Publisher v3 reference describes them:
///
/// - `GET …/purchases/voidedpurchases?startTime&endTime&maxResults&token&type&includeQuantityBasedPartialRefund`
///   lists what was voided between the times (default: the last 30 days; a start older than 30 days
///   answers 400), oldest first, one-time products only unless `type=1`, partial refunds only with
///   `includeQuantityBasedPartialRefund=true`; more than a page's worth gives
///   `tokenPagination.nextPageToken` (with a token, the start time is ignored, as Google says).
/// - `POST …/orders/{orderId}:refund?revoke=true` refunds a one-time order and cancels it
///   (purchaseState 1), listing it as voided by the developer (after `settleRefunds()` once
///   `deferRefunds()` was called); an order already refunded answers 400.
/// - `POST …/purchases/subscriptionsv2/tokens/{token}:revoke` with `{"revocationContext": {"fullRefund": {}}}`
///   or `proratedRefund` ends the subscription now (it reads `SUBSCRIPTION_STATE_EXPIRED`) and lists it
///   as voided; one already ended answers 400.
/// - `GET …/purchases/productsv2/tokens/{token}` answers `ProductPurchaseV2` (404 once `disableProductsV2()`).
extension FakeGooglePlay {
    /// Voids a one-time purchase as Google would after a refund or chargeback: cancelled and listed.
    public func voidProduct(token: String, at: Date? = nil, source: Int = 0, reason: Int = 0, quantity: Int? = nil) {
        state.withLock { state in
            guard var product = state.products[token] else { return }
            if quantity == nil || quantity == product.quantity { product.purchaseState = 1 }
            state.products[token] = product
            state.voided.append(FakeGoogleVoided(purchaseToken: token, orderId: product.orderId, purchaseTime: product.purchaseTime,
                                                 voidedTime: at ?? now(), voidedSource: source, voidedReason: reason, voidedQuantity: quantity))
        }
    }

    /// Lists a voided purchase as given, without changing the purchase.
    public func addVoided(_ voided: FakeGoogleVoided) { state.withLock { $0.voided.append(voided) } }
    public func setVoidedPageSize(_ size: Int) { state.withLock { $0.voidedPageSize = size } }
    /// Page tokens handed out so far are refused from now on (400), as an expired token.
    public func forgetPageTokens() { state.withLock { $0.pageTokens = [:] } }
    /// `purchases.productsv2` answers 404 from now on.
    public func disableProductsV2() { state.withLock { $0.productsV2 = false } }

    func orderRoutes(_ router: Router<BasicRequestContext>) {
        let app = "/androidpublisher/v3/applications/:package"
        router.get("\(app)/purchases/voidedpurchases") { request, context in
            let query = request.uri.queryParameters
            let parameters = (start: query.get("startTime").flatMap { Int64($0) }, end: query.get("endTime").flatMap { Int64($0) },
                              max: query.get("maxResults").flatMap { Int($0) }, token: query.get("token"), type: query.get("type") ?? "0",
                              partial: query.get("includeQuantityBasedPartialRefund") == "true")
            return self.purchases(request, context) { state, _ in
                self.listVoided(&state, parameters)
            }
        }
        router.post("\(app)/orders/:token") { request, context in
            let revoke = request.uri.queryParameters.get("revoke") == "true"
            return self.purchases(request, context) { state, orderAndAction in
                guard let (orderId, action) = Self.split(orderAndAction), action == "refund" else { return Self.error(404, "notFound") }
                guard let (token, product) = state.products.first(where: { $0.value.orderId == orderId }) else { return Self.error(404, "notFound") }
                guard product.purchaseState == 0, !state.refundedOrders.contains(orderId) else { return Self.error(400, "orderNotRefundable") }
                state.refundedOrders.insert(orderId)
                if state.deferVoids {
                    state.deferred.append(token)
                } else {
                    self.settle(&state, token: token, revoke: revoke)
                }
                return Response(status: .ok)
            }
        }
        router.post("\(app)/purchases/subscriptionsv2/tokens/:token") { request, context in
            var request = request
            let body = (try? await request.collectBody(upTo: 1 << 16)).map { String(buffer: $0) } ?? ""
            return self.purchases(request, context) { state, tokenAndAction in
                guard let (token, action) = Self.split(tokenAndAction), action == "revoke" else { return Self.error(404, "notFound") }
                guard var subscription = state.subscriptions[token] else { return Self.error(404, "notFound") }
                guard let revocation = Self.revocationContext(body) else { return Self.error(400, "invalidValue") }
                guard ["SUBSCRIPTION_STATE_ACTIVE", "SUBSCRIPTION_STATE_CANCELED", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD",
                       "SUBSCRIPTION_STATE_ON_HOLD", "SUBSCRIPTION_STATE_PAUSED"].contains(subscription.state) else {
                    return Self.error(400, "subscriptionNotActive")
                }
                subscription.state = "SUBSCRIPTION_STATE_EXPIRED"
                subscription.expiryTime = self.now()
                if subscription.autoRenewEnabled != nil { subscription.autoRenewEnabled = false }
                state.subscriptions[token] = subscription
                state.revocations.append(revocation)
                state.voided.append(FakeGoogleVoided(purchaseToken: token, orderId: subscription.latestOrderId,
                                                     purchaseTime: subscription.startTime ?? self.now(), voidedTime: self.now(),
                                                     voidedSource: 1, voidedReason: 0, subscription: true))
                return Response(status: .ok)
            }
        }
        router.get("\(app)/purchases/productsv2/tokens/:token") { request, context in
            self.purchases(request, context) { state, token in
                guard state.productsV2 else { return Self.error(404, "notFound") }
                guard let product = state.products[token] else { return Self.error(404, "notFound") }
                return FakeStoreServer.json(object: product.v2json)
            }
        }
    }

    /// Refunds are taken but not carried out until `settleRefunds()`, as Google's processing takes a while.
    public func deferRefunds() { state.withLock { $0.deferVoids = true } }
    /// Carries out the refunds taken meanwhile (and those to come).
    public func settleRefunds() {
        state.withLock { state in
            state.deferVoids = false
            for token in state.deferred { settle(&state, token: token, revoke: true) }
            state.deferred = []
        }
    }

    func settle(_ state: inout State, token: String, revoke: Bool) {
        guard let product = state.products[token] else { return }
        if revoke {
            state.products[token]?.purchaseState = 1
            state.products[token]?.refundableQuantity = 0
        }
        state.voided.append(FakeGoogleVoided(purchaseToken: token, orderId: product.orderId, purchaseTime: product.purchaseTime,
                                             voidedTime: now(), voidedSource: 1, voidedReason: 0))
    }

    /// The `revocationContext` member a revoke asked for (`fullRefund`, `proratedRefund`); nil unless exactly one.
    static func revocationContext(_ body: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let context = object["revocationContext"] as? [String: Any], context.count == 1,
              let key = context.keys.first, ["fullRefund", "proratedRefund", "itemBasedRefund"].contains(key) else { return nil }
        return key
    }

    /// Every revocation context a `:revoke` was asked with, in order.
    public var revocations: [String] { state.withLock { $0.revocations } }

    func listVoided(_ state: inout State,
                    _ query: (start: Int64?, end: Int64?, max: Int?, token: String?, type: String, partial: Bool)) -> Response {
        let nowMillis = Int64(now().timeIntervalSince1970 * 1000)
        var offset = 0
        var start = query.start ?? nowMillis - 30 * 86_400_000
        if let token = query.token {
            guard let page = state.pageTokens[token] else { return Self.error(400, "invalidPageToken", status: "INVALID_ARGUMENT") }
            offset = page.offset
            start = page.start
        } else if start < nowMillis - 30 * 86_400_000 - 60_000 {
            return Self.error(400, "startTimeTooOld", status: "INVALID_ARGUMENT")
        }
        let end = query.end ?? nowMillis
        let size = min(query.max ?? 1000, state.voidedPageSize)
        let matching = state.voided
            .filter { voided in
                let at = Int64(voided.voidedTime.timeIntervalSince1970 * 1000)
                return at >= start && at <= end && (query.type == "1" || !voided.subscription) && (query.partial || voided.voidedQuantity == nil)
            }
            .sorted { $0.voidedTime < $1.voidedTime }
        let page = Array(matching.dropFirst(offset).prefix(size))
        var json: [String: any Sendable] = [
            "pageInfo": ["totalResults": matching.count, "resultPerPage": size, "startIndex": offset] as [String: any Sendable],
            "voidedPurchases": page.map(\.json),
        ]
        if offset + page.count < matching.count {
            let next = "fake-page-" + UUID().uuidString
            state.pageTokens[next] = (offset + page.count, start)
            json["tokenPagination"] = ["nextPageToken": next] as [String: any Sendable]
        }
        return FakeStoreServer.json(object: json)
    }
}
