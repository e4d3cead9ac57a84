import Crypto
import Foundation
import SoukCore

/// Signs a subscription's promotional offer for one purchase, both ways StoreKit takes it, as
/// Apple's App Store Server Library makes them:
/// - StoreKit 2 (`Product.SubscriptionOffer`'s signed JWS, "Generating JWS to sign App Store
///   requests"): ES256, header `{"alg":"ES256","kid":…,"typ":"JWT"}`, claims `productId`,
///   `offerIdentifier`, `transactionId` when given, `bid`, `iss`, `aud` `promotional-offer`, `iat`,
///   `nonce` — in `PromotionalOfferV2SignatureCreator`'s order and JSON spelling, so the bytes
///   before the signature are the same;
/// - StoreKit 1 (`SKPaymentDiscount`, "Generating a signature for promotional offers"): ECDSA
///   P-256 SHA-256 over bundle id, key id, product, offer, application username (lower-cased),
///   nonce (lower-cased) and timestamp joined by U+2063, DER, base64 — `PromotionalOfferSignatureCreator`.
///
/// The key never leaves this value: it is not printed, logged or described.
public struct PromotionalOfferSigner: Sendable {
    /// What a signature request names.
    public struct Offer: Sendable, Equatable {
        public var productId: String
        public var offerId: String
        public var applicationUsername: String
        /// Any transaction id of the person (their `appTransactionId`); StoreKit 2 only, optional.
        public var transactionId: String?

        public init(productId: String, offerId: String, applicationUsername: String = "", transactionId: String? = nil) {
            self.productId = productId
            self.offerId = offerId
            self.applicationUsername = applicationUsername
            self.transactionId = transactionId
        }
    }

    /// The answer: StoreKit 2's JWS, and StoreKit 1's key id, nonce, timestamp and signature.
    public struct Signature: Sendable, Equatable {
        public var signatureV2: String
        public var keyIdentifier: String
        /// Lower-case UUID, the same in both signatures.
        public var nonce: String
        /// Milliseconds since 1970 (StoreKit 1); the JWS's `iat` is the same instant in seconds.
        public var timestamp: Int64
        public var signature: String
    }

    /// The audience of a StoreKit 2 promotional offer JWS.
    public static let audience = "promotional-offer"
    /// The separator of StoreKit 1's signed string (INVISIBLE SEPARATOR).
    public static let separator = "\u{2063}"

    public let bundleId: String
    public let keyId: String
    public let issuerId: String
    let key: P256.Signing.PrivateKey

    /// - Throws: `StoreSettingsError` when `privateKeyPEM` is not a P-256 private key in PEM (the key is not quoted).
    public init(bundleId: String, keyId: String, issuerId: String, privateKeyPEM: String) throws(StoreSettingsError) {
        do { key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM) } catch {
            throw StoreSettingsError("the promotional offer key \(keyId) is not a P-256 private key in PEM (.p8)")
        }
        self.bundleId = bundleId
        self.keyId = keyId
        self.issuerId = issuerId
    }

    /// Both signatures of `offer` made at `date`, with `nonce` (both go into each).
    public func sign(_ offer: Offer, nonce: UUID, at date: Date) throws -> Signature {
        try sign(offer, nonce: nonce, timestamp: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// Both signatures of `offer`, with `nonce` and `timestamp` in milliseconds since 1970.
    public func sign(_ offer: Offer, nonce: UUID, timestamp milliseconds: Int64) throws -> Signature {
        let nonceText = nonce.uuidString.lowercased()
        let storeKit1 = Data(Self.storeKit1Payload(bundleId: bundleId, keyId: keyId, offer: offer, nonce: nonceText, timestamp: milliseconds).utf8)
        let input = Base64URL.encode(Data(Self.header(keyId: keyId).utf8)) + "."
            + Base64URL.encode(Data(claims(offer, issuedAt: milliseconds / 1000, nonce: nonceText).utf8))
        let jws = input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)).rawRepresentation)
        return Signature(signatureV2: jws, keyIdentifier: keyId, nonce: nonceText, timestamp: milliseconds,
                         signature: try key.signature(for: storeKit1).derRepresentation.base64EncodedString())
    }

    /// The public half of the key (PEM), for checking a signature.
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// StoreKit 1's signed string, as `PromotionalOfferSignatureCreator.create_signature` joins it.
    public static func storeKit1Payload(bundleId: String, keyId: String, offer: Offer, nonce: String, timestamp: Int64) -> String {
        [bundleId, keyId, offer.productId, offer.offerId, offer.applicationUsername.lowercased(), nonce.lowercased(), String(timestamp)]
            .joined(separator: separator)
    }

    /// The JWS header as PyJWT writes it for Apple's creator (keys sorted, no spaces).
    static func header(keyId: String) -> String {
        "{\"alg\":\"ES256\",\"kid\":\(PythonJSON.string(keyId)),\"typ\":\"JWT\"}"
    }

    /// The claims in the order Apple's creator sets them, spelled as Python's `json.dumps` does.
    func claims(_ offer: Offer, issuedAt: Int64, nonce: String) -> String {
        var members: [(String, String)] = [("productId", PythonJSON.string(offer.productId)),
                                           ("offerIdentifier", PythonJSON.string(offer.offerId))]
        if let transactionId = offer.transactionId { members.append(("transactionId", PythonJSON.string(transactionId))) }
        members += [("bid", PythonJSON.string(bundleId)), ("iss", PythonJSON.string(issuerId)),
                    ("aud", PythonJSON.string(Self.audience)), ("iat", String(issuedAt)), ("nonce", PythonJSON.string(nonce))]
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

/// A JSON string as Python's `json.dumps` writes it by default (`ensure_ascii`): `"` and `\`
/// escaped, control characters as `\n`-style or `\u00XX`, every non-ASCII character as `\uXXXX`
/// (UTF-16, surrogate pairs beyond the BMP).
enum PythonJSON {
    static func string(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default: out += String(format: "\\u%04x", unit)
            }
        }
        return out + "\""
    }
}
