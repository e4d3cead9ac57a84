import Crypto
import Foundation
import SoukCore
import SoukIntegrations
import Testing

/// Promotional offer signatures as Apple's App Store Server Library makes them
/// (`PromotionalOfferV2SignatureCreator`, `PromotionalOfferSignatureCreator`); the byte-for-byte
/// cross-check with the library itself is Tests/apple-verdicts/test_promotional_offers.py.
@Suite struct PromotionalOfferSignerTests {
    static let key = P256.Signing.PrivateKey()
    static let nonce = UUID(uuidString: "5D1A4A7E-2C3B-4F6A-9E8D-1B2C3D4E5F60")!

    static func signer() throws -> PromotionalOfferSigner {
        try PromotionalOfferSigner(bundleId: "com.example.reader", keyId: "OFFER12345", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                   privateKeyPEM: key.pemRepresentation)
    }

    static func part(_ jws: String, _ index: Int) -> String {
        String(decoding: Base64URL.decode(String(jws.split(separator: ".")[index]))!, as: UTF8.self)
    }

    @Test func storeKit2sJWSHasApplesHeaderAndClaimsInApplesOrderAndVerifies() throws {
        let signed = try Self.signer().sign(PromotionalOfferSigner.Offer(productId: "com.example.reader.monthly", offerId: "winback50",
                                                                         transactionId: "2000000123456789"),
                                            nonce: Self.nonce, timestamp: 1_790_000_000_987)
        #expect(Self.part(signed.signatureV2, 0) == #"{"alg":"ES256","kid":"OFFER12345","typ":"JWT"}"#)
        #expect(Self.part(signed.signatureV2, 1) == #"{"productId":"com.example.reader.monthly","offerIdentifier":"winback50","#
            + #""transactionId":"2000000123456789","bid":"com.example.reader","iss":"57246542-96fe-1a63-e053-0824d011072a","#
            + #""aud":"promotional-offer","iat":1790000000,"nonce":"5d1a4a7e-2c3b-4f6a-9e8d-1b2c3d4e5f60"}"#)
        let parts = signed.signatureV2.split(separator: ".").map(String.init)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(parts[2])!)
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(signed.keyIdentifier == "OFFER12345" && signed.nonce == "5d1a4a7e-2c3b-4f6a-9e8d-1b2c3d4e5f60")
        #expect(signed.timestamp == 1_790_000_000_987)
    }

    @Test func withoutATransactionIdTheClaimIsLeftOut() throws {
        let signed = try Self.signer().sign(PromotionalOfferSigner.Offer(productId: "p", offerId: "o"), nonce: Self.nonce, timestamp: 1000)
        #expect(!Self.part(signed.signatureV2, 1).contains("transactionId"))
        #expect(Self.part(signed.signatureV2, 1).hasPrefix(#"{"productId":"p","offerIdentifier":"o","bid":"#))
    }

    @Test func storeKit1SignsApplesSeparatedStringInDER() throws {
        let offer = PromotionalOfferSigner.Offer(productId: "com.example.reader.monthly", offerId: "winback50", applicationUsername: "Alice-Token")
        let signed = try Self.signer().sign(offer, nonce: Self.nonce, timestamp: 1_790_000_000_987)
        let payload = PromotionalOfferSigner.storeKit1Payload(bundleId: "com.example.reader", keyId: "OFFER12345", offer: offer,
                                                              nonce: signed.nonce, timestamp: signed.timestamp)
        #expect(payload == "com.example.reader\u{2063}OFFER12345\u{2063}com.example.reader.monthly\u{2063}winback50\u{2063}alice-token"
            + "\u{2063}5d1a4a7e-2c3b-4f6a-9e8d-1b2c3d4e5f60\u{2063}1790000000987")
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try #require(Data(base64Encoded: signed.signature)))
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data(payload.utf8)))
    }

    @Test func textIsSpelledAsPythonsJSONSpellsIt() throws {
        let signer = try PromotionalOfferSigner(bundleId: "com.example.reader", keyId: "K\"1", issuerId: "é\n𝄞", privateKeyPEM: Self.key.pemRepresentation)
        let signed = try signer.sign(PromotionalOfferSigner.Offer(productId: "p", offerId: "o"), nonce: Self.nonce, timestamp: 1000)
        #expect(Self.part(signed.signatureV2, 0) == #"{"alg":"ES256","kid":"K\"1","typ":"JWT"}"#)
        #expect(Self.part(signed.signatureV2, 1).contains(#""iss":"\u00e9\n\ud834\udd1e""#))
    }

    @Test func aKeyThatIsNotP256IsRefusedWithoutQuotingIt() {
        let pem = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ5dGVz\n-----END PRIVATE KEY-----"
        do {
            _ = try PromotionalOfferSigner(bundleId: "b", keyId: "OFFER12345", issuerId: "i", privateKeyPEM: pem)
            Issue.record("a broken key was accepted")
        } catch {
            #expect(error.description.contains("OFFER12345") && !error.description.contains("c2VjcmV0"))
        }
    }
}
