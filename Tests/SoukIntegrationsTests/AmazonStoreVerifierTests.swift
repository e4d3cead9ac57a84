import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `AmazonStoreVerifier` against an in-memory RVS speaking Amazon's wire format.
@Suite struct AmazonStoreVerifierTests {
    static let app = "com.example.tv"
    static let secret = "2:amazon-shared-secret-XYZ"
    static let now = Date(timeIntervalSince1970: 1_760_000_000)
    static let day: TimeInterval = 86_400

    static func ms(_ date: Date) -> NSNumber { NSNumber(value: Int64(date.timeIntervalSince1970 * 1000)) }

    static func secretFile(_ value: String = secret) throws -> SecretReference {
        let path = NSTemporaryDirectory() + "souk-amazon-\(UUID().uuidString)"
        try value.write(toFile: path, atomically: true, encoding: .utf8)
        return .path(path)
    }

    /// Generous per-request timeout: under a full parallel test run a first answer can take more
    /// than half a second, and a retry would change what the tests count. The slow-store test
    /// passes its own short one.
    static func endpoints(_ base: String, timeout: Duration = .seconds(60)) -> StoreEndpoints {
        var endpoints = StoreEndpoints()
        endpoints.amazonRVSBaseURL = base
        endpoints.amazonRVSSandboxBaseURL = base
        endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 3, requestTimeout: timeout)
        return endpoints
    }

    static func verifier(_ base: String, sandbox: Bool = false, reference: SecretReference? = nil,
                         timeout: Duration = .seconds(60)) throws -> AmazonStoreVerifier {
        let settings = AmazonSettings(sharedSecret: try reference ?? secretFile(), sandbox: sandbox)
        return AmazonStoreVerifier(settings: { _ in CommerceStoreSettings(amazon: settings) }, endpoints: endpoints(base, timeout: timeout),
                                   now: { now })
    }

    static func claim(_ receipt: String = "R1", user: String? = "U1", sandboxAccount: Bool = false) -> PurchaseClaim {
        PurchaseClaim(store: .amazon, app: app, storeProductId: "claimed", transactionId: receipt, userId: user, receipt: "",
                      accountIsSandbox: sandboxAccount)
    }

    static func subscription(_ extra: [String: any Sendable]) -> [String: any Sendable] {
        var fields: [String: any Sendable] = ["productId": "com.example.tv.plus", "termSku": "com.example.tv.plus.monthly",
                                              "productType": "SUBSCRIPTION", "purchaseDate": ms(now - 40 * day),
                                              "renewalDate": ms(now + 5 * day), "autoRenewing": true, "quantity": 1,
                                              "testTransaction": false]
        for (key, value) in extra { fields[key] = value }
        return fields
    }

    func lifecycle(_ fields: [String: any Sendable]) async throws -> VerifiedPurchase? {
        let fake = FakeAmazonRVS(sharedSecret: Self.secret)
        fake.add(receiptId: "R1", userId: "U1", fields: fields)
        let box = VerdictBox()
        try await FakeStoreServer.run(routes: fake.routes) { base in
            box.verdict = try await Self.verifier(base).verify(Self.claim())
        }
        guard case .verified(let purchase)? = box.verdict else { Issue.record("not verified: \(String(describing: box.verdict))"); return nil }
        return purchase
    }

    @Test func activeSubscriptionUsesTermSkuAndReceiptIdForBothIds() async throws {
        let purchase = try #require(try await lifecycle(Self.subscription([:])))
        #expect(purchase.transactionId == "R1" && purchase.originalTransactionId == "R1")
        #expect(purchase.storeProductId == "com.example.tv.plus.monthly")
        #expect(purchase.type == .autoRenewable && purchase.environment == .production)
        #expect(purchase.expiresDate == Self.now + 5 * Self.day)
        #expect(purchase.lifecycle == StoreLifecycle(state: .active, willRenew: true, recheckAt: Self.now + 5 * Self.day))
    }

    @Test func trialWhileFreeTrialEndIsAhead() async throws {
        let purchase = try #require(try await lifecycle(Self.subscription(["freeTrialEndDate": Self.ms(Self.now + Self.day)])))
        #expect(purchase.lifecycle?.periodType == .trial && purchase.lifecycle?.state == .active)
    }

    @Test func autoRenewOffIsCancelled() async throws {
        let purchase = try #require(try await lifecycle(Self.subscription(["autoRenewing": false])))
        #expect(purchase.lifecycle?.state == .cancelled && purchase.lifecycle?.willRenew == false)
    }

    @Test func gracePeriodWhenRenewalPassedAndGraceAhead() async throws {
        let purchase = try #require(try await lifecycle(Self.subscription(["renewalDate": Self.ms(Self.now - Self.day),
                                                                         "gracePeriodEndDate": Self.ms(Self.now + 2 * Self.day)])))
        #expect(purchase.lifecycle == StoreLifecycle(state: .gracePeriod, willRenew: true, graceExpiresDate: Self.now + 2 * Self.day,
                                                     recheckAt: Self.now + 2 * Self.day))
    }

    @Test func pastCancelDateIsExpired() async throws {
        let purchase = try #require(try await lifecycle(Self.subscription(["cancelDate": Self.ms(Self.now - Self.day), "cancelReason": 2,
                                                                         "autoRenewing": false])))
        #expect(purchase.lifecycle?.state == .expired && purchase.revocationDate == nil)
        #expect(purchase.expiresDate == Self.now - Self.day)
    }

    @Test func customerServiceCancellationIsRevoked() async throws {
        let purchase = try #require(try await lifecycle(Self.subscription(["cancelDate": Self.ms(Self.now - Self.day), "cancelReason": 0])))
        #expect(purchase.lifecycle?.state == .revoked && purchase.revocationDate == Self.now - Self.day)
    }

    @Test func entitlementAndConsumableWithCancelDateAreRevoked() async throws {
        let entitled = try #require(try await lifecycle(["productId": "com.example.tv.hd", "productType": "ENTITLED",
                                                         "purchaseDate": Self.ms(Self.now - Self.day), "cancelDate": Self.ms(Self.now)]))
        #expect(entitled.type == .nonConsumable && entitled.revocationDate == Self.now && entitled.lifecycle == nil)
        #expect(entitled.storeProductId == "com.example.tv.hd")
        let coins = try #require(try await lifecycle(["productId": "com.example.tv.coins", "productType": "CONSUMABLE",
                                                      "purchaseDate": Self.ms(Self.now - Self.day), "quantity": 3]))
        #expect(coins.type == .consumable && coins.revocationDate == nil && coins.quantity == 3)
    }

    @Test func sandboxPathForSandboxAccountAndSandboxApp() async throws {
        let fake = FakeAmazonRVS(sharedSecret: Self.secret)
        fake.add(receiptId: "R 1/x", userId: "U1", fields: Self.subscription([:]))  // testTransaction false: the sandbox path alone makes it Sandbox
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            let byAccount = try await Self.verifier(base).verify(Self.claim("R 1/x", sandboxAccount: true))
            let byApp = try await Self.verifier(base, sandbox: true).verify(Self.claim("R 1/x"))
            guard case .verified(let a) = byAccount, case .verified(let b) = byApp else { Issue.record("not verified"); return }
            #expect(a.environment == .sandbox && b.environment == .sandbox)
        }
        let paths = faults.requests.map(\.path)
        // One request per check; under a full parallel run the HTTP client may repeat one whose answer it lost.
        #expect((2...4).contains(paths.count))
        #expect(paths.allSatisfy { $0.hasPrefix("/sandbox/version/1.0/verifyReceiptId/developer/") && $0.hasSuffix("/receiptId/R%201%2Fx") })
    }

    @Test func productionPathWithoutSandbox() async throws {
        let fake = FakeAmazonRVS(sharedSecret: Self.secret)
        fake.add(receiptId: "R1", userId: "U1", fields: Self.subscription([:]))
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            _ = try await Self.verifier(base).verify(Self.claim())
        }
        let paths = faults.requests.map(\.path)
        #expect((1...2).contains(paths.count))
        #expect(paths.allSatisfy { $0 == "/version/1.0/verifyReceiptId/developer/2%3Aamazon-shared-secret-XYZ/user/U1/receiptId/R1" })
    }

    @Test func errorCodesMapToRefusalsAndCredentialFaults() async throws {
        let fake = FakeAmazonRVS(sharedSecret: Self.secret)
        fake.add(receiptId: "R1", userId: "U1", fields: Self.subscription([:]))
        fake.add(receiptId: "R2", userId: "U2", fields: Self.subscription([:]))
        fake.expire(secret: "expired-secret")
        try await FakeStoreServer.run(routes: fake.routes) { base in
            let verifier = try Self.verifier(base)
            #expect(try await verifier.verify(Self.claim("nope")) == .refused(PurchaseRefusal("invalid-transaction", "Amazon does not know this receipt id (400).")))
            guard case .refused(let user) = try await verifier.verify(Self.claim("R1", user: "stranger")) else { Issue.record("497"); return }
            #expect(user.code == "invalid-user")
            guard case .refused(let receipt) = try await verifier.verify(Self.claim("R1", user: "U2")) else { Issue.record("498"); return }
            #expect(receipt.code == "invalid-receipt")
            let wrong = try Self.verifier(base, reference: Self.secretFile("wrong-secret"))
            let fault = await #expect(throws: StoreFault.self) { try await wrong.verify(Self.claim()) }
            #expect(fault?.kind == .credentials && fault?.detail.contains("496") == true)
            #expect(fault.map { !"\($0)".contains("wrong-secret") } == true)
            let expired = try Self.verifier(base, reference: Self.secretFile("expired-secret"))
            let expiredFault = await #expect(throws: StoreFault.self) { try await expired.verify(Self.claim()) }
            #expect(expiredFault?.kind == .credentials && expiredFault?.detail.contains("499") == true)
            #expect(expiredFault.map { !"\($0)".contains("expired-secret") } == true)
        }
    }

    @Test func missingUserIdAndMissingSettingsAreRefusedWithoutACall() async throws {
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: { _ in }) { base in
            guard case .refused(let missing) = try await Self.verifier(base).verify(Self.claim(user: "")) else { Issue.record("user"); return }
            #expect(missing.code == "missing-user-id")
            let none = AmazonStoreVerifier(settings: { _ in CommerceStoreSettings() }, endpoints: Self.endpoints(base))
            guard case .refused(let unconfigured) = try await none.verify(Self.claim()) else { Issue.record("settings"); return }
            #expect(unconfigured.code == "store-not-configured")
            let unreadable = try Self.verifier(base, reference: .path("/nonexistent/souk-secret"))
            let fault = await #expect(throws: StoreFault.self) { try await unreadable.verify(Self.claim()) }
            #expect(fault?.kind == .notConfigured)
        }
        #expect(faults.requests.isEmpty)
    }

    @Test func outageRecoversAfterRetriesAndSlowStoreTimesOut() async throws {
        let fake = FakeAmazonRVS(sharedSecret: Self.secret)
        fake.add(receiptId: "R1", userId: "U1", fields: Self.subscription([:]))
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            faults.failNext(2, status: 503)
            guard case .verified = try await Self.verifier(base).verify(Self.claim()) else { Issue.record("not recovered"); return }
            #expect(faults.requests.count == 3)
            faults.delayNext(3, by: .milliseconds(700))
            let fault = await #expect(throws: StoreFault.self) {
                try await Self.verifier(base, timeout: .milliseconds(300)).verify(Self.claim())
            }
            #expect(fault?.kind == .unavailable)
            #expect(fault.map { !"\($0)".contains(Self.secret) && !"\($0)".contains("amazon-shared-secret") } == true)
        }
    }
}

/// Carries a verdict out of the fake server's closure.
final class VerdictBox: @unchecked Sendable {
    var verdict: StoreVerdict?
}
