import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/app-transaction` (docs/commerce.md, "App transactions"): a signed app
/// transaction, verified like a signed transaction, answers the version and date the person first
/// had the app.
@Suite struct AppTransactionTests {
    typealias F = CommercePurchaseFixture

    /// StoreKit's `AppTransaction` payload under Apple's field names (dates in milliseconds).
    struct Payload: Encodable {
        var receiptType = "Production"
        var appAppleId: Int64 = 1_234_567_890
        var bundleId = F.app
        var applicationVersion = "3.1"
        var versionExternalIdentifier: Int64 = 867_530_900
        var receiptCreationDate = Date(timeIntervalSince1970: 1_764_000_000)
        var originalPurchaseDate = Date(timeIntervalSince1970: 1_577_836_800)
        var originalApplicationVersion = "1.0"
        var appTransactionId: String? = "704289572311258389"
        var originalPlatform = "iOS"
    }

    static func post(_ f: F, _ jws: String, as person: F.Person) async throws -> TestResponse {
        try await f.postJSON("app-transaction", ["appTransaction": jws], as: person)
    }

    @Test(arguments: TestBackend.available)
    func aVerifiedAppTransactionAnswersTheFirstVersionAndDate(backend: TestBackend) async throws {
        try await F.with(backend) { f in
            let response = try await Self.post(f, f.chain.sign(Payload()), as: f.alice)
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "no-store")
            let document = try F.json(response, as: [String: String].self)
            #expect(document == ["bundleId": F.app, "environment": "Production", "originalApplicationVersion": "1.0",
                                 "originalPurchaseDate": "2020-01-01T00:00:00Z", "appTransactionId": "704289572311258389"])
            // Before iOS 18.4 there is no appTransactionId; a sandbox account presents Sandbox data.
            var older = Payload(receiptType: "Sandbox")
            older.appTransactionId = nil
            let sandbox = try await Self.post(f, f.chain.sign(older), as: f.sam)
            #expect(sandbox.status == .ok)
            let withoutId = try F.json(sandbox, as: [String: String].self)
            #expect(withoutId["appTransactionId"] == nil && withoutId["environment"] == "Sandbox")
        }
    }

    @Test(arguments: TestBackend.available)
    func anAppTransactionThatDoesNotVerifyIs422(backend: TestBackend) async throws {
        try await F.with(backend) { f in
            let stranger = try AppleTestChain.make()
            let cases: [(String, F.Person, String)] = [
                (stranger.sign(Payload()), f.alice, "invalid-app-transaction"),
                (f.chain.sign(Payload(), signingKey: P256.Signing.PrivateKey()), f.alice, "invalid-app-transaction"),
                ("not.a.jws", f.alice, "invalid-app-transaction"),
                (f.chain.sign(Payload(bundleId: "com.example.other")), f.alice, "wrong-app"),
                (f.chain.sign(Payload(receiptType: "Xcode")), f.alice, "wrong-environment"),
                (f.chain.sign(Payload()), f.sam, "wrong-environment"),
            ]
            for (jws, person, type) in cases {
                let refused = try await Self.post(f, jws, as: person)
                #expect(refused.status == .unprocessableContent, "\(type)")
                #expect(try F.problemType(refused) == "urn:souk:problem:\(type)")
            }
            let unreadable = try await f.postJSON("app-transaction", ["transaction": "x"], as: f.alice)
            #expect(unreadable.status == .badRequest)
            let anonymous = try await f.client.execute(uri: "/commerce/\(F.app)/app-transaction", method: .post,
                                                       body: ByteBuffer(string: #"{"appTransaction": "x"}"#))
            #expect(anonymous.status == .unauthorized)
            let unknown = try await f.client.execute(uri: "/commerce/com.example.unknown/app-transaction", method: .post,
                                                     headers: [.authorization: "Bearer \(f.alice.token)"],
                                                     body: ByteBuffer(string: #"{"appTransaction": "x"}"#))
            #expect(unknown.status == .notFound)
        }
    }
}
