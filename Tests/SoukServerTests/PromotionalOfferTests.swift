import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/offers/signature`: promotional offers signed for the person asking,
/// when the catalog lists the offer and the person may have it (docs/commerce.md "Promotional offers").
@Suite struct PromotionalOfferTests {
    typealias F = CommercePurchaseFixture
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"

    /// The reader catalog with three offers on the monthly plan and, unless `keyPath` is nil, the offer key.
    static func catalog(keyPath: String?, offerKeyId: String? = "OFFER12345") -> CommerceCatalog {
        var catalog = CommerceCatalogSamples.reader
        let index = catalog.products.firstIndex { $0.id == "reader.monthly" }!
        catalog.products[index].offers = [SubscriptionOffer(id: "winback50", eligibility: .lapsed), SubscriptionOffer(id: "welcome"),
                                          SubscriptionOffer(id: "first.month", eligibility: .neverSubscribed)]
        catalog.stores = CommerceStoreSettings(apple: AppleStoreSettings(bundleId: F.app, issuerId: issuerId, offerKeyId: offerKeyId,
                                                                         offerPrivateKey: keyPath.map(SecretReference.path)))
        return catalog
    }

    /// Runs `test` with the offer key in a file the catalog names.
    static func withKey(_ backend: TestBackend, offerKeyId: String? = "OFFER12345",
                        _ test: @escaping @Sendable (F, P256.Signing.PrivateKey) async throws -> Void) async throws {
        let key = P256.Signing.PrivateKey()
        let path = NSTemporaryDirectory() + "souk-offer-\(UUID().uuidString).p8"
        try key.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await F.with(backend, catalog: catalog(keyPath: path, offerKeyId: offerKeyId)) { f in try await test(f, key) }
    }

    struct Signed: Decodable {
        var signatureV2: String
        var keyIdentifier: String
        var nonce: String
        var timestamp: Int64
        var signature: String
    }

    static func ask(_ f: F, _ offerId: String, product: String = "reader.monthly", as person: F.Person,
                    extra: [String: String] = [:]) async throws -> TestResponse {
        try await f.postJSON("offers/signature", ["productId": product, "offerId": offerId].merging(extra) { $1 }, as: person)
    }

    static func claims(_ jws: String) throws -> [String: Any] {
        let part = try #require(Base64URL.decode(String(jws.split(separator: ".")[1])))
        return try #require(try JSONSerialization.jsonObject(with: part) as? [String: Any])
    }

    @Test(arguments: TestBackend.available)
    func signsAnOfferForAnyoneSignedInWithTheAppsKey(backend: TestBackend) async throws {
        try await Self.withKey(backend) { f, key in
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            let response = try await Self.ask(f, "welcome", as: f.alice, extra: ["applicationUsername": "Alice-Token", "transactionId": "2000000000000001"])
            #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
            let signed = try F.json(response, as: Signed.self)
            #expect(signed.keyIdentifier == "OFFER12345")
            #expect(UUID(uuidString: signed.nonce)?.uuidString.lowercased() == signed.nonce)
            #expect(signed.timestamp >= before - 1000 && signed.timestamp <= Int64(Date().timeIntervalSince1970 * 1000) + 1000)
            // StoreKit 2: Apple's claims, naming the App Store SKU of the product; the app's key signed it.
            let claims = try Self.claims(signed.signatureV2)
            #expect(claims["productId"] as? String == "com.example.reader.monthly" && claims["offerIdentifier"] as? String == "welcome")
            #expect(claims["bid"] as? String == F.app && claims["iss"] as? String == Self.issuerId && claims["aud"] as? String == "promotional-offer")
            #expect(claims["nonce"] as? String == signed.nonce && claims["transactionId"] as? String == "2000000000000001")
            #expect((claims["iat"] as? Int).map(Int64.init) == signed.timestamp / 1000)
            let parts = signed.signatureV2.split(separator: ".").map(String.init)
            #expect(key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(parts[2])!),
                                                   for: Data((parts[0] + "." + parts[1]).utf8)))
            // StoreKit 1: the separated string, the username lower-cased.
            let payload = [F.app, "OFFER12345", "com.example.reader.monthly", "welcome", "alice-token", signed.nonce, String(signed.timestamp)]
                .joined(separator: "\u{2063}")
            let der = try P256.Signing.ECDSASignature(derRepresentation: try #require(Data(base64Encoded: signed.signature)))
            #expect(key.publicKey.isValidSignature(der, for: Data(payload.utf8)))
            // The App Store SKU names the product as well; each signature has its own nonce.
            let again = try F.json(try await Self.ask(f, "welcome", product: "com.example.reader.monthly", as: f.alice), as: Signed.self)
            #expect(again.nonce != signed.nonce)
            #expect(try !Self.claims(again.signatureV2).keys.contains("transactionId"))
        }
    }

    @Test(arguments: TestBackend.available)
    func aWinBackIsForPastSubscribersOfTheGroupAndAFirstOfferForNewcomers(backend: TestBackend) async throws {
        try await Self.withKey(backend) { f, _ in
            func answer(_ offer: String, _ person: F.Person) async throws -> HTTPResponse.Status { try await Self.ask(f, offer, as: person).status }
            // Alice never subscribed.
            let refused = try await Self.ask(f, "winback50", as: f.alice)
            #expect(refused.status == .forbidden)
            #expect(try F.problemType(refused) == "urn:souk:problem:offer-not-eligible")
            #expect(try await answer("first.month", f.alice) == .ok)
            // With the yearly plan of the same group active, neither.
            #expect(try await f.buy("reader.yearly", as: f.alice).status == .created)
            #expect(try await answer("winback50", f.alice) == .forbidden)
            #expect(try await answer("first.month", f.alice) == .forbidden)
            #expect(try await answer("welcome", f.alice) == .ok)
            // Bob's monthly plan ended a month ago: a win-back, and no longer a newcomer.
            let lapsed = f.transaction("reader.monthly", purchased: Date().addingTimeInterval(-60 * 86_400),
                                       expires: Date().addingTimeInterval(-30 * 86_400))
            #expect(try await f.buy("reader.monthly", as: f.bob, lapsed).status == .created)
            #expect(try await answer("winback50", f.bob) == .ok)
            #expect(try await answer("first.month", f.bob) == .forbidden)
            // A non-renewing pass is no subscription of the group.
            #expect(try await f.buy("reader.pass.30d", as: f.sam, f.transaction("reader.pass.30d", environment: "Sandbox")).status == .created)
            #expect(try await answer("first.month", f.sam) == .ok)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOfferTheCatalogDoesNotListIs404AndABadRequest400(backend: TestBackend) async throws {
        try await Self.withKey(backend) { f, _ in
            for (product, offer) in [("reader.monthly", "nope"), ("reader.yearly", "welcome"), ("reader.pass.30d", "welcome"), ("reader.gone", "welcome")] {
                let response = try await Self.ask(f, offer, product: product, as: f.alice)
                #expect(response.status == .notFound, "\(product) \(offer)")
                #expect(try F.problemType(response) == "urn:souk:problem:unknown-offer")
            }
            #expect(try await Self.ask(f, "welcome", as: f.alice, extra: ["transactionId": "12ab"]).status == .badRequest)
            #expect(try await Self.ask(f, "welcome", as: f.alice, extra: ["applicationUsername": String(repeating: "a", count: 256)]).status == .badRequest)
            #expect(try await f.postJSON("offers/signature", ["offerId": "welcome"], as: f.alice).status == .badRequest)
            let anonymous = try await f.client.execute(uri: "/commerce/\(F.app)/offers/signature", method: .post,
                                                       headers: [.contentType: "application/json"],
                                                       body: ByteBuffer(string: #"{"productId": "reader.monthly", "offerId": "welcome"}"#))
            #expect(anonymous.status == .unauthorized)
            let elsewhere = try await f.client.execute(uri: "/commerce/org.example.none/offers/signature", method: .post,
                                                       headers: [.authorization: "Bearer \(f.alice.token)", .contentType: "application/json"],
                                                       body: ByteBuffer(string: #"{"productId": "reader.monthly", "offerId": "welcome"}"#))
            #expect(elsewhere.status == .notFound)
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutAnOfferKeyTheOperatorIsToldAndNothingIsSigned(backend: TestBackend) async throws {
        try await Self.withKey(backend, offerKeyId: nil) { f, _ in
            let response = try await Self.ask(f, "welcome", as: f.alice)
            #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] == nil)
            #expect(try F.problemType(response) == "urn:souk:problem:offer-signing-not-configured")
            #expect(try F.json(response, as: F.ProblemBody.self).detail.contains("offerKeyId"))
        }
        let missing = "/nonexistent/souk-offer-key.p8"
        try await F.with(backend, catalog: Self.catalog(keyPath: missing)) { f in
            let response = try await Self.ask(f, "welcome", as: f.alice)
            #expect(response.status == .serviceUnavailable)
            #expect(try F.problemType(response) == "urn:souk:problem:offer-signing-not-configured")
            #expect(try F.json(response, as: F.ProblemBody.self).detail.contains(missing))
        }
    }
}
