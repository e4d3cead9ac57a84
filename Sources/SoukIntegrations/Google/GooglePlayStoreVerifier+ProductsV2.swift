import Foundation
import SoukCore

/// One-time purchases read through `purchases.productsv2` (purchase options and offers), with
/// `purchases.products` (v1) where Google does not answer v2 for the app.
extension GooglePlayStoreVerifier {
    /// The one-time purchase `receipt` names: v2 first; a v2 refusal (404, 400, 410) or a 403 (v2
    /// not enabled for the service account) asks v1, whose answer is then final — so a token Google
    /// does not know is refused as before, and missing credentials still fault through v1.
    func readProduct(_ client: GooglePlayClient, package: String, productId: String, claim: PurchaseClaim,
                     receipt: GooglePurchaseReceipt) async throws(StoreFault) -> GoogleAnswer<VerifiedPurchase> {
        var v2: GoogleAnswer<GoogleProductPurchaseV2>?
        do throws(StoreFault) {
            v2 = try await client.productPurchaseV2(package: package, token: receipt.token)
        } catch {
            guard error.kind == .credentials else { throw error }
        }
        if case .found(let product)? = v2 {
            guard let item = product.lineItem(for: productId.isEmpty ? nil : productId) else {
                return .rejected(status: 400, reason: "purchaseTokenDoesNotMatchProductId")
            }
            return .found(try productPurchaseV2(product, item: item, productId: productId, claim: claim, receipt: receipt))
        }
        switch try await client.productPurchase(package: package, productId: productId, token: receipt.token) {
        case .found(let product):
            return .found(try productPurchase(product, productId: productId, claim: claim, receipt: receipt, package: package))
        case .rejected(let status, let reason):
            return .rejected(status: status, reason: reason)
        }
    }

    /// `ProductPurchaseV2` → purchase, as `productPurchase` reads v1: the order id (else the claim's,
    /// else one derived from the token), `purchaseCompletionTime`, `CANCELLED` verified with a
    /// revocation, a licence tester's purchase (`testPurchaseContext`) Sandbox; the line item's
    /// quantity, and its purchase option and offer kept on the purchase.
    func productPurchaseV2(_ product: GoogleProductPurchaseV2, item: GoogleProductPurchaseV2.LineItem, productId: String,
                           claim: PurchaseClaim, receipt: GooglePurchaseReceipt) throws(StoreFault) -> VerifiedPurchase {
        let now = now()
        let state = product.purchaseStateContext?.purchaseState
        switch state {
        case "PENDING":
            throw StoreFault(.pendingAtStore, "The Google Play purchase of \(productId) is still pending payment.")
        case "PURCHASED", "CANCELLED":
            break
        default:
            // An unknown state must not grant or take access by guess: the purchase waits and is read again.
            throw StoreFault(.unavailable, "Google answered a one-time purchase state Souk does not know (\(GoogleAccessTokens.safeCode(state) ?? "none")).")
        }
        let orderId = Self.nonEmpty(product.orderId) ?? receipt.orderId ?? Self.claimedOrderId(claim, receipt) ?? Self.tokenId(receipt.token)
        let purchased = GoogleTime.parse(product.purchaseCompletionTime) ?? now
        let cancelled = state == "CANCELLED"
        let offer = item.productOfferDetails
        var verified = VerifiedPurchase(
            store: .googlePlay, transactionId: orderId, originalTransactionId: orderId,
            storeProductId: Self.nonEmpty(item.productId) ?? productId, type: claim.productType,
            purchaseDate: purchased, originalPurchaseDate: purchased,
            revocationDate: cancelled ? now : nil, revocationReason: cancelled ? "purchaseState CANCELLED" : nil,
            quantity: max(1, offer?.quantity ?? 1),
            environment: product.testPurchaseContext != nil ? .sandbox : .production, app: claim.app, signedDate: now,
            appAccountToken: Self.nonEmpty(product.obfuscatedExternalAccountId), storeReference: receipt.token,
            acknowledged: product.acknowledgementState == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            consumed: claim.productType == .nonConsumable ? nil : offer?.consumptionState == "CONSUMPTION_STATE_CONSUMED")
        verified.purchaseOptionId = Self.nonEmpty(offer?.purchaseOptionId)
        verified.offerId = Self.nonEmpty(offer?.offerId)
        verified.country = CountryCode.normalized(product.regionCode)
        return verified
    }
}
