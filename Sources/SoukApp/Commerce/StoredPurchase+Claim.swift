import Foundation
import SoukCore
import SoukStore

extension StoredPurchase {
    /// The claim that asks the purchase's store about it again (a notification, reconciliation),
    /// built only from what Souk stored after verifying it — never from anything a client sends.
    ///
    /// - Apple: an empty receipt, so the verifier looks the transaction up by id (App Store Server
    ///   API); a subscription by its original transaction id, whose status names the latest renewal.
    /// - Google Play: the purchase token (`storeReference`) as receipt and transaction id.
    /// - Amazon: the receipt id and the user id RVS needs.
    /// - Roku: the transaction id.
    ///
    /// `accountIsSandbox` is the buyer's flag; a purchase recorded in Sandbox is asked about there too.
    /// Nil when the store needs something that was never stored (a Google purchase without a token,
    /// an Amazon one without a user id): such a purchase cannot be re-read.
    public func recheckClaim(accountIsSandbox: Bool) -> PurchaseClaim? {
        let latest = transactionId ?? claimedTransactionId
        let sandbox = accountIsSandbox || environment == .sandbox
        switch store {
        case .appleStore:
            let id = productType == .autoRenewable ? (originalTransactionId ?? latest) : latest
            return PurchaseClaim(store: store, app: app, storeProductId: storeProductId, transactionId: id, receipt: "",
                                 productType: productType, accountIsSandbox: sandbox)
        case .googlePlay:
            guard let token = storeReference, !token.isEmpty else { return nil }
            return PurchaseClaim(store: store, app: app, storeProductId: storeProductId, transactionId: token, receipt: token,
                                 productType: productType, accountIsSandbox: sandbox)
        case .amazon:
            guard let userId, !userId.isEmpty else { return nil }
            return PurchaseClaim(store: store, app: app, storeProductId: storeProductId, transactionId: latest, userId: userId, receipt: "",
                                 productType: productType, accountIsSandbox: sandbox)
        case .roku:
            return PurchaseClaim(store: store, app: app, storeProductId: storeProductId, transactionId: latest, receipt: "",
                                 productType: productType, accountIsSandbox: sandbox)
        }
    }
}
