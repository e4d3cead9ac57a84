import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `POST /commerce/<app>/offers/signature` (Bearer): signs one of the catalog's promotional offers
/// for the signed-in person, for StoreKit 2 (`signatureV2`, a JWS) and StoreKit 1 (`keyIdentifier`,
/// `nonce`, `timestamp`, `signature`) — docs/commerce.md "Promotional offers".
///
/// An offer the catalog does not list is a `404` (`unknown-offer`); a person the offer is not for a
/// `403` (`offer-not-eligible`); an app whose offer key is not set up a `503`
/// (`offer-signing-not-configured`, without `Retry-After`: it lasts until the operator acts).
struct PromotionalOfferController<Context: RequestContext> {
    let catalogs: CommerceCatalogCache
    let authenticator: CommerceAuthenticator
    let offers: PromotionalOfferService

    func addRoutes(to router: Router<Context>) {
        router.post("commerce/:app/offers/signature", use: signature)
    }

    /// Answers the two signatures of the offer named in the body.
    @Sendable func signature(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let app = try context.parameters.require("app")
        guard let catalog = try await catalogs.state(app: app) else {
            throw Problem(.notFound, "No in-app products are sold for \(app) here.")
        }
        let body = try JSONDecoder().decode(OfferSignatureRequest.self, from: Data(buffer: try await request.collectBody(upTo: 1 << 14)))
        let username = body.applicationUsername ?? ""
        guard username.unicodeScalars.count <= 255 else { throw Problem(.badRequest, "applicationUsername must be at most 255 characters.") }
        if let transactionId = body.transactionId, !(1...64).contains(transactionId.count) || !transactionId.allSatisfy(\.isASCIIDigit) {
            throw Problem(.badRequest, "transactionId must be an App Store transaction id (1 to 64 digits).")
        }
        let asked = PromotionalOfferService.Request(productId: body.productId, offerId: body.offerId, applicationUsername: username,
                                                    transactionId: body.transactionId)
        switch try await offers.sign(asked, buyer: buyer, catalog: catalog) {
        case .signed(let signature):
            return Response.json(bytes: WireJSON.encode(OfferSignatureDocument(signature)), cacheControl: "no-store")
        case .unknownOffer(let detail):
            throw Problem(.notFound, detail, type: "urn:souk:problem:unknown-offer")
        case .ineligible(let detail):
            throw Problem(.forbidden, detail, type: "urn:souk:problem:offer-not-eligible")
        case .notConfigured(let detail):
            throw Problem(.serviceUnavailable, detail, type: "urn:souk:problem:offer-signing-not-configured")
        }
    }
}

extension Character {
    /// `0`…`9` only (not other scripts' digits).
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
