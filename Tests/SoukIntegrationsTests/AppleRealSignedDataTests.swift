import Foundation
import SoukCore
import Testing
@testable import SoukIntegrations

/// Genuine Apple-signed data found in public code (Fixtures/apple-real-signed-data.json, each with
/// its source), verified against the built-in Apple Root CA - G3 only. `expected` is what Apple's
/// own Python library answered for each environment; several leaves have expired since.
@Suite struct AppleRealSignedDataTests {
    struct Fixture: Decodable {
        struct Sample: Decodable {
            var name: String
            var source: String
            var bundleId: String?
            var transactionId: String?
            var leafValidity: [String]
            var expected: [String: String]
            var jws: String
        }
        var transactions: [Sample]
        var renewalInfo: [Sample]
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/apple-real-signed-data.json")
        do {
            return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        } catch {
            preconditionFailure("Fixtures/apple-real-signed-data.json: \(error)")
        }
    }()

    static func leafExpiry(_ sample: Fixture.Sample) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: sample.leafValidity[1] + "T00:00:00Z"))
    }

    @Test func fixtureHoldsSamplesFromEveryLeafGenerationIncludingExpiredOnes() throws {
        #expect(Self.fixture.transactions.count >= 4)
        let expiries = try Self.fixture.transactions.map(Self.leafExpiry)
        #expect(expiries.contains { $0 < Date() }, "at least one sample's leaf has expired")
        #expect(Set(Self.fixture.transactions.map { $0.leafValidity[0].prefix(4) }).count >= 3)
        #expect(Self.fixture.transactions.allSatisfy { !$0.source.isEmpty })
    }

    @Test(arguments: fixture.transactions.map(\.name))
    func realTransactionGetsApplesVerdictAtSignedDate(name: String) async throws {
        let sample = try #require(Self.fixture.transactions.first { $0.name == name })
        let verifier = try AppleSignedDataVerifier()
        let bundleId = try #require(sample.bundleId)
        for (environment, status) in sample.expected {
            let accepted = try #require(CommerceEnvironment(rawValue: environment))
            let result = await verifier.verifyTransaction(sample.jws, bundleId: bundleId, environments: [accepted])
            #expect((result.failure?.appleStatus ?? "OK") == status, "\(name) as \(environment): \(result.failure.map(String.init(describing:)) ?? "valid")")
            if status == "OK" {
                #expect(result.payload?.transactionId == sample.transactionId)
            }
        }
    }

    @Test(arguments: fixture.transactions.map(\.name))
    func realTransactionWithAnExpiredLeafFailsWhenJudgedNow(name: String) async throws {
        let sample = try #require(Self.fixture.transactions.first { $0.name == name })
        let now = try AppleSignedDataVerifier(validationTime: .now)
        let result = await now.verifySignedData(sample.jws, as: AppleTransactionPayload.self)
        let expired = try Self.leafExpiry(sample) < Date()
        if expired {
            #expect(result.failure?.reason == .certificateNotValid)
        } else {
            #expect(result.payload != nil)
        }
    }

    @Test func realTransactionIsRefusedForAnotherApp() async throws {
        let sample = try #require(Self.fixture.transactions.first { $0.expected["Sandbox"] == "OK" })
        let result = try await AppleSignedDataVerifier().verifyTransaction(sample.jws, bundleId: "com.example.reader", environments: [.sandbox])
        #expect(result.failure?.reason == .wrongApp)
    }

    @Test func realTransactionWithAnAlteredPayloadIsRefused() async throws {
        let sample = try #require(Self.fixture.transactions.first { $0.expected["Sandbox"] == "OK" })
        var parts = sample.jws.split(separator: ".").map(String.init)
        let decoded = try #require(Base64URL.decodeEitherAlphabet(parts[1]))
        var payload = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
        payload["productId"] = "com.example.everything"
        parts[1] = try JSONSerialization.data(withJSONObject: payload).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let bundleId = try #require(sample.bundleId)
        let result = try await AppleSignedDataVerifier().verifyTransaction(parts.joined(separator: "."), bundleId: bundleId, environments: [.sandbox])
        #expect(result.failure?.reason == .invalidSignature)
    }

    @Test func realTransactionBecomesASandboxPurchase() async throws {
        let sample = try #require(Self.fixture.transactions.first { $0.name == "lovepush-auto-renewable-sandbox-2024" })
        let verifier = AppleStoreVerifier(verifier: try AppleSignedDataVerifier())
        let claim = PurchaseClaim(store: .appleStore, app: "com.leinotek.LovePush", storeProductId: "x", transactionId: "y", receipt: sample.jws)
        guard case .verified(let purchase) = try await verifier.verify(claim) else {
            Issue.record("not verified")
            return
        }
        #expect(purchase.environment == .sandbox)
        #expect(purchase.transactionId == "2000000816072421")
        #expect(purchase.storeProductId == "lovepush_monthly_150")
        #expect(purchase.type == .autoRenewable)
        #expect(purchase.expiresDate == Date(timeIntervalSince1970: 1_735_191_994))
    }

    @Test(arguments: fixture.renewalInfo.map(\.name))
    func realRenewalInfoGetsApplesVerdict(name: String) async throws {
        let sample = try #require(Self.fixture.renewalInfo.first { $0.name == name })
        let verifier = try AppleSignedDataVerifier()
        for (environment, status) in sample.expected {
            let accepted = try #require(CommerceEnvironment(rawValue: environment))
            let result = await verifier.verifyRenewalInfo(sample.jws, environments: [accepted])
            #expect((result.failure?.appleStatus ?? "OK") == status)
        }
    }
}
