import Foundation
import Logging
import SoukCore
import SoukIntegrations
import SoukStore

/// Signs an App Store promotional offer for a signed-in person (`POST /commerce/<app>/offers/signature`,
/// docs/commerce.md "Promotional offers"): the offer must be one the catalog lists on the product,
/// the person must be eligible (`OfferEligibilityRule` over their granted purchases), and the app's
/// `stores.apple_store` must name the offer key. The key is read at each signature (a rotated file
/// is picked up at once) and never logged.
package struct PromotionalOfferService: Sendable {
    /// What the app asks to have signed.
    package struct Request: Sendable, Equatable {
        /// Souk's product id, or the product's App Store SKU.
        package var productId: String
        package var offerId: String
        package var applicationUsername: String
        package var transactionId: String?

        package init(productId: String, offerId: String, applicationUsername: String, transactionId: String?) {
            self.productId = productId
            self.offerId = offerId
            self.applicationUsername = applicationUsername
            self.transactionId = transactionId
        }
    }

    package enum Outcome: Sendable, Equatable {
        case signed(PromotionalOfferSigner.Signature)
        /// No such offer on an auto-renewable product sold on the App Store.
        case unknownOffer(String)
        /// The person may not have this offer.
        case ineligible(String)
        /// The operator has not set up offer signing (or its key cannot be used).
        case notConfigured(String)
    }

    package let index: EntitlementIndex
    package let now: @Sendable () -> Date
    package let nonce: @Sendable () -> UUID
    package let logger: Logger

    package init(index: EntitlementIndex, now: @escaping @Sendable () -> Date, nonce: @escaping @Sendable () -> UUID, logger: Logger) {
        self.index = index
        self.now = now
        self.nonce = nonce
        self.logger = logger
    }

    package func sign(_ request: Request, buyer: PurchaseIntakeService.Buyer, catalog: CommerceCatalogState) async throws -> Outcome {
        let app = catalog.app
        guard let product = catalog.catalog.products.first(where: { $0.id == request.productId })
                ?? catalog.catalog.products.first(where: { $0.skus[.appleStore] == request.productId }),
              product.type == .autoRenewable, let group = product.group else {
            return .unknownOffer("\(request.productId) is not an auto-renewable subscription of \(app).")
        }
        guard let sku = product.skus[.appleStore] else {
            return .unknownOffer("\(product.id) is not sold on the App Store.")
        }
        guard let offer = product.offers.first(where: { $0.id == request.offerId }) else {
            return .unknownOffer("\(product.id) has no offer \(request.offerId).")
        }
        let signer: PromotionalOfferSigner
        switch Self.signer(for: catalog.catalog.stores?.apple, app: app) {
        case .success(let made): signer = made
        case .failure(let error):
            logger.warning("promotional offer signing is not configured", metadata: ["app": "\(app)", "reason": "\(error.description)"])
            return .notConfigured("This app's App Store offers cannot be signed here: \(error.description).")
        }
        let environments = EntitlementEngine.environments(accountIsSandbox: buyer.sandbox, allowSandbox: catalog.catalog.allowSandbox)
        let history = OfferEligibilityRule.history(in: group, records: try await index.records(account: buyer.account, app: app),
                                                   catalog: catalog, environments: environments, at: now())
        guard OfferEligibilityRule.admits(offer, history: history) else {
            return .ineligible(Self.refusal(offer, group: group, history: history))
        }
        let signature = try signer.sign(PromotionalOfferSigner.Offer(productId: sku, offerId: offer.id, applicationUsername: request.applicationUsername,
                                                                     transactionId: request.transactionId),
                                        nonce: nonce(), at: now())
        logger.info("promotional offer signed", metadata: ["app": "\(app)", "product": "\(product.id)", "offer": "\(offer.id)",
                                                           "keyId": "\(signer.keyId)"])
        return .signed(signature)
    }

    /// The signer an app's Apple settings make, or what is missing (setting names and references, never a key).
    package static func signer(for apple: AppleStoreSettings?, app: String) -> Result<PromotionalOfferSigner, StoreSettingsError> {
        var missing: [String] = []
        if apple?.offerKeyId == nil { missing.append("offerKeyId") }
        if apple?.offerPrivateKey == nil { missing.append("offerPrivateKeyPath or offerPrivateKeyEnv") }
        if apple?.issuerId == nil { missing.append("issuerId") }
        guard let apple, let keyId = apple.offerKeyId, let reference = apple.offerPrivateKey, let issuerId = apple.issuerId else {
            return .failure(StoreSettingsError("stores.apple_store has no \(missing.joined(separator: ", "))"))
        }
        do throws(StoreSettingsError) {
            let pem = try reference.resolve()
            return .success(try PromotionalOfferSigner(bundleId: apple.bundleId ?? app, keyId: keyId, issuerId: issuerId, privateKeyPEM: pem))
        } catch {
            return .failure(StoreSettingsError("the offer key (\(reference.description)) cannot be used: \(error.description)"))
        }
    }

    package static func refusal(_ offer: SubscriptionOffer, group: String, history: OfferEligibilityRule.GroupHistory) -> String {
        switch (offer.eligibility, history) {
        case (.lapsed, .active): "Offer \(offer.id) is for past subscribers of \(group); this account's subscription is active."
        case (.lapsed, _): "Offer \(offer.id) is for past subscribers of \(group); this account never subscribed."
        default: "Offer \(offer.id) is for people who never subscribed to \(group); this account did."
        }
    }
}
