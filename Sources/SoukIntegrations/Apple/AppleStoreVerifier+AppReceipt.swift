import Foundation
import SoukCore

extension AppleStoreVerifier {
    /// A StoreKit 1 app receipt, as Apple's `AppReceiptVerifier` and `ReceiptUtility` lead to the
    /// App Store Server API: the receipt is verified (signature, chain to Apple's roots) and must
    /// be the app's; the in-app purchase the claim names is taken from it (by transaction id, then
    /// the newest of the claimed product, then the newest of all) and looked up by its transaction
    /// id at the host of the receipt's environment; Apple's signed answer is verified like any
    /// signed transaction. A verified receipt is the buyer's proof of possession, as a signed
    /// transaction is. Refusals: `invalid-receipt` (the receipt does not verify), `wrong-app`,
    /// `wrong-environment` (an Xcode receipt), `receipt-without-purchases`.
    func verifyAppReceipt(_ base64: String, claim: PurchaseClaim, settings apple: AppleStoreSettings?,
                          bundleId: String) async throws -> StoreVerdict {
        let receipt: AppleAppReceipt
        switch await verifier.verifyAppReceipt(base64, bundleId: bundleId) {
        case .valid(let valid):
            receipt = valid
        case .invalid(let failure):
            switch failure.reason {
            case .wrongApp: return .refused(.wrongApp(failure.detail))
            case .wrongEnvironment: return .refused(.wrongEnvironment(failure.detail))
            default: return .refused(.invalidReceipt("The app receipt does not verify (\(failure.reason.rawValue)): \(failure.detail)."))
            }
        }
        guard let environment = receipt.environment, let purchase = Self.inAppPurchase(in: receipt, for: claim),
              let id = purchase.transactionId ?? purchase.originalTransactionId else {
            return .refused(.receiptWithoutPurchases("The app receipt of \(bundleId) holds no in-app purchase."))
        }
        return try await lookUp(id, at: [environment], app: claim.app, settings: apple, bundleId: bundleId)
    }

    /// The in-app purchase of `receipt` the claim is about: the one with the claimed transaction id,
    /// else the newest with it as original transaction id, else the newest of the claimed product,
    /// else the newest of all (the intake rule then refuses a product or transaction mismatch).
    static func inAppPurchase(in receipt: AppleAppReceipt, for claim: PurchaseClaim) -> AppleReceiptInAppPurchase? {
        let purchases = receipt.inAppPurchases.filter { $0.transactionId != nil || $0.originalTransactionId != nil }
        let older: (AppleReceiptInAppPurchase, AppleReceiptInAppPurchase) -> Bool = {
            ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast)
        }
        if !claim.transactionId.isEmpty {
            if let named = purchases.first(where: { $0.transactionId == claim.transactionId }) { return named }
            if let renewal = purchases.filter({ $0.originalTransactionId == claim.transactionId }).max(by: older) { return renewal }
        }
        if !claim.storeProductId.isEmpty, let product = purchases.filter({ $0.productId == claim.storeProductId }).max(by: older) {
            return product
        }
        return purchases.max(by: older)
    }
}

extension PurchaseRefusal {
    /// A verified app receipt that holds no in-app purchase: nothing to look up.
    public static func receiptWithoutPurchases(_ detail: String) -> PurchaseRefusal { .init("receipt-without-purchases", detail) }
}

extension AppleAppReceipt {
    /// Whether `text` is a StoreKit 1 app receipt rather than a JWS: base64 (no `.`), decoding to
    /// a DER/BER SEQUENCE.
    public static func isAppReceipt(_ text: String) -> Bool {
        guard !text.contains("."), let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return false }
        return data.count > 2 && data.first == 0x30
    }
}
