import Foundation
import NIOHTTP1
import SoukCore

/// The Android Publisher v3 calls behind voided purchases, refunds and one-time products v2.
extension GooglePlayClient {
    /// `purchases.voidedpurchases.list` from `startTimeMillis` (Google keeps 30 days), one-time
    /// products and subscriptions (`type=1`), quantity-based partial refunds included; `token`
    /// continues a listing with the same start.
    public func voidedPurchases(package: String, startTimeMillis: Int64, token: String?,
                                maxResults: Int = 1000) async throws(StoreFault) -> GoogleAnswer<GoogleVoidedPurchasePage> {
        var query = "startTime=\(startTimeMillis)&maxResults=\(maxResults)&type=1&includeQuantityBasedPartialRefund=true"
        if let token { query += "&token=\(Self.escape(token))" }
        let url = applicationURL(package) + "/purchases/voidedpurchases?" + query
        return try await decode(call(.GET, url, label: "GET purchases.voidedpurchases"), label: "purchases.voidedpurchases")
    }

    /// `orders.refund` with `revoke=true`: Google refunds the order and takes the item away.
    public func refundOrder(package: String, orderId: String) async throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        let url = applicationURL(package) + "/orders/\(Self.escape(orderId)):refund?revoke=true"
        return try done(await call(.POST, url, body: Array("{}".utf8), label: "POST orders.refund"))
    }

    /// `purchases.subscriptionsv2.revoke`: the subscription ends now, refunded in full
    /// (`fullRefund`) or for the unused time (`proratedRefund`).
    public func revokeSubscription(package: String, token: String, prorated: Bool) async throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        let url = applicationURL(package) + "/purchases/subscriptionsv2/tokens/\(Self.escape(token)):revoke"
        let body = prorated ? #"{"revocationContext":{"proratedRefund":{}}}"# : #"{"revocationContext":{"fullRefund":{}}}"#
        return try done(await call(.POST, url, body: Array(body.utf8), label: "POST purchases.subscriptionsv2.revoke"))
    }

    /// `purchases.productsv2.getproductpurchasev2`.
    public func productPurchaseV2(package: String, token: String) async throws(StoreFault) -> GoogleAnswer<GoogleProductPurchaseV2> {
        let url = applicationURL(package) + "/purchases/productsv2/tokens/\(Self.escape(token))"
        return try await decode(call(.GET, url, label: "GET purchases.productsv2"), label: "purchases.productsv2")
    }
}
