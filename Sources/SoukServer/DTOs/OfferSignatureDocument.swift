import SoukIntegrations

/// `POST /commerce/<app>/offers/signature`'s body: `{"productId", "offerId", "applicationUsername"?, "transactionId"?}`.
struct OfferSignatureRequest: Decodable {
    var productId: String
    var offerId: String
    /// StoreKit 1's `applicationUsername` of the payment (signed lower-cased, as Apple does); empty when left out.
    var applicationUsername: String?
    /// Any App Store transaction id of the person (their `appTransactionId`), put in StoreKit 2's JWS.
    var transactionId: String?
}

/// Its answer: StoreKit 2's signed JWS and StoreKit 1's `SKPaymentDiscount` fields.
struct OfferSignatureDocument: Codable, Equatable {
    var signatureV2: String
    var keyIdentifier: String
    var nonce: String
    var timestamp: Int64
    var signature: String

    init(_ signed: PromotionalOfferSigner.Signature) {
        signatureV2 = signed.signatureV2
        keyIdentifier = signed.keyIdentifier
        nonce = signed.nonce
        timestamp = signed.timestamp
        signature = signed.signature
    }
}
