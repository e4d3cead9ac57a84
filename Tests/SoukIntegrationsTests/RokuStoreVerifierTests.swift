import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `RokuStoreVerifier` and `RokuDate` against an in-memory `validate-transaction`.
@Suite struct RokuStoreVerifierTests {
    static let app = "com.example.roku"
    static let key = "roku-partner-key-123"
    static let now = Date(timeIntervalSince1970: 1_760_000_000)
    static let day: TimeInterval = 86_400

    static func keyFile(_ value: String = key) throws -> SecretReference {
        let path = NSTemporaryDirectory() + "souk-roku-\(UUID().uuidString)"
        try value.write(toFile: path, atomically: true, encoding: .utf8)
        return .path(path)
    }

    /// `timeout`: generous by default (a full parallel test run can be slow to answer; a retry would
    /// change what the tests count); the slow-store test passes a short one.
    static func verifier(_ base: String, key reference: SecretReference? = nil, timeout: Duration = .seconds(60)) throws -> RokuStoreVerifier {
        var endpoints = StoreEndpoints()
        endpoints.rokuBaseURL = base
        endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: .milliseconds(5), attempts: 3, requestTimeout: timeout)
        let settings = RokuSettings(partnerApiKey: try reference ?? keyFile())
        return RokuStoreVerifier(settings: { _ in CommerceStoreSettings(roku: settings) }, endpoints: endpoints, now: { now })
    }

    static let claim = PurchaseClaim(store: .roku, app: app, storeProductId: "claimed", transactionId: "T1", receipt: "")

    static func subscription(_ extra: [String: any Sendable]) -> [String: any Sendable] {
        var fields: [String: any Sendable] = ["productId": "plus_monthly", "productName": "Plus", "purchaseType": "MonthlySub",
                                              "purchaseDate": FakeRoku.wcfDate(now - 10 * day, offset: "-0800"),
                                              "originalPurchaseDate": FakeRoku.wcfDate(now - 70 * day),
                                              "originalTransactionId": "T0",
                                              "expirationDate": FakeRoku.wcfDate(now + 20 * day), "isEntitled": true,
                                              "cancelled": false, "purchaseStatus": "Active", "quantity": 1]
        for (key, value) in extra { fields[key] = value }
        return fields
    }

    func verdict(_ fields: [String: any Sendable], faults: StoreFaults = StoreFaults()) async throws -> StoreVerdict? {
        let fake = FakeRoku(partnerAPIKey: Self.key)
        fake.add(transactionId: "T1", fields: fields)
        let box = VerdictBox()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            box.verdict = try await Self.verifier(base).verify(Self.claim)
        }
        return box.verdict
    }

    func purchase(_ fields: [String: any Sendable]) async throws -> VerifiedPurchase? {
        guard case .verified(let purchase)? = try await verdict(fields) else { Issue.record("not verified"); return nil }
        return purchase
    }

    /// Roku's JSON form answers a number; its XML form, and older JSON answers, a word.
    @Test func everyDocumentedSpellingOfSuccessIsRead() {
        let transaction: [String: Any] = ["transactionId": "T1"]
        #expect(RokuPayClient.succeeded(transaction.merging(["status": 0, "errorMessage": ""]) { $1 }))
        #expect(RokuPayClient.succeeded(transaction.merging(["status": "Success"]) { $1 }))
        #expect(RokuPayClient.succeeded(transaction.merging(["status": "0"]) { $1 }))
        #expect(RokuPayClient.succeeded(transaction.merging(["errorMessage": ""]) { $1 }))
        #expect(!RokuPayClient.succeeded(transaction.merging(["status": 1, "errorMessage": "Invalid transaction id."]) { $1 }))
        #expect(!RokuPayClient.succeeded(["status": "Failure", "errorMessage": "Invalid transaction id."]))
        #expect(!RokuPayClient.succeeded(["errorMessage": "Invalid transaction id."]))
        #expect(!RokuPayClient.succeeded([:]))
    }

    @Test func parsesWCFAndISODates() {
        #expect(RokuDate.parse("/Date(1581033062000+0000)/") == Date(timeIntervalSince1970: 1_581_033_062))
        #expect(RokuDate.parse("/Date(1581033062000-0800)/") == Date(timeIntervalSince1970: 1_581_033_062))
        #expect(RokuDate.parse("/Date(1581033062000)/") == Date(timeIntervalSince1970: 1_581_033_062))
        #expect(RokuDate.parse("/Date(-1000+0000)/") == Date(timeIntervalSince1970: -1))
        #expect(RokuDate.parse("2020-02-06T23:51:02Z") == Date(timeIntervalSince1970: 1_581_033_062))
        #expect(RokuDate.parse("2020-02-06T23:51:02.500Z") == Date(timeIntervalSince1970: 1_581_033_062.5))
        #expect(RokuDate.parse("/Date(abc)/") == nil)
        #expect(RokuDate.parse("/Date(1581033062000+08)/") == nil)
        #expect(RokuDate.parse("yesterday") == nil)
    }

    @Test func activeSubscriptionMapsRokuFields() async throws {
        let faults = StoreFaults()
        guard case .verified(let p)? = try await verdict(Self.subscription([:]), faults: faults) else { Issue.record("not verified"); return }
        #expect(p.transactionId == "T1" && p.originalTransactionId == "T0" && p.storeProductId == "plus_monthly")
        #expect(p.purchaseDate == Self.now - 10 * Self.day && p.originalPurchaseDate == Self.now - 70 * Self.day)
        #expect(p.expiresDate == Self.now + 20 * Self.day && p.environment == .production && p.type == .autoRenewable)
        #expect(p.lifecycle == StoreLifecycle(state: .active, willRenew: true, recheckAt: Self.now + 20 * Self.day))
        let request = try #require(faults.requests.first)
        #expect(request.path == "/listen/transaction-service.svc/validate-transaction/roku-partner-key-123/T1")
        #expect(request.headers.first { $0.key.lowercased() == "accept" }?.value == "application/json")
    }

    @Test func firstPurchaseWithoutOriginalIdUsesItsOwnId() async throws {
        var fields = Self.subscription([:])
        fields["originalTransactionId"] = nil
        let p = try #require(try await purchase(fields))
        #expect(p.originalTransactionId == "T1")
    }

    @Test func cancelledWithExpiryAheadIsCancelled() async throws {
        let p = try #require(try await purchase(Self.subscription(["cancelled": true])))
        #expect(p.lifecycle?.state == .cancelled && p.lifecycle?.willRenew == false)
    }

    @Test func entitledWithPastExpiryKeepsAccessAndIsCheckedAgain() async throws {
        let p = try #require(try await purchase(Self.subscription(["expirationDate": FakeRoku.wcfDate(Self.now - Self.day)])))
        #expect(p.lifecycle == StoreLifecycle(state: .gracePeriod, willRenew: true, graceExpiresDate: Self.now + Self.day,
                                              recheckAt: Self.now + 3_600))
        #expect(p.lifecycle?.state.keepsAccess == true)
    }

    @Test func notEntitledIsExpired() async throws {
        let p = try #require(try await purchase(Self.subscription(["isEntitled": false, "expirationDate": FakeRoku.wcfDate(Self.now - Self.day)])))
        #expect(p.lifecycle?.state == .expired)
    }

    @Test func refundIsARevocation() async throws {
        let p = try #require(try await purchase(Self.subscription(["refundDate": FakeRoku.wcfDate(Self.now - 3_600)])))
        #expect(p.lifecycle?.state == .revoked && p.revocationDate == Self.now - 3_600 && p.revocationReason == "refund")
    }

    @Test func pendingPurchaseIsAStoreFault() async throws {
        let fault = await #expect(throws: StoreFault.self) { try await verdict(Self.subscription(["purchaseStatus": "Pending_Payment"])) }
        #expect(fault?.kind == .pendingAtStore)
    }

    @Test func oneTimePurchaseHasNoLifecycle() async throws {
        let p = try #require(try await purchase(["productId": "coins_100", "purchaseDate": FakeRoku.wcfDate(Self.now), "isEntitled": true,
                                                 "quantity": 2]))
        #expect(p.lifecycle == nil && p.expiresDate == nil && p.quantity == 2 && p.storeProductId == "coins_100")
    }

    @Test func unknownTransactionIsRefusedAndBadKeyIsACredentialsFault() async throws {
        let fake = FakeRoku(partnerAPIKey: Self.key)
        try await FakeStoreServer.run(routes: fake.routes) { base in
            guard case .refused(let refusal) = try await Self.verifier(base).verify(Self.claim) else { Issue.record("not refused"); return }
            #expect(refusal.code == "invalid-receipt")
            let wrong = try Self.verifier(base, key: Self.keyFile("not-the-roku-key"))
            let fault = await #expect(throws: StoreFault.self) { try await wrong.verify(Self.claim) }
            #expect(fault?.kind == .credentials)
            #expect(fault.map { !"\($0)".contains("not-the-roku-key") } == true)
        }
    }

    @Test func missingSettingsAndUnreadableKey() async throws {
        let none = RokuStoreVerifier(settings: { _ in nil }, endpoints: StoreEndpoints())
        guard case .refused(let refusal) = try await none.verify(Self.claim) else { Issue.record("not refused"); return }
        #expect(refusal.code == "store-not-configured")
        let fault = await #expect(throws: StoreFault.self) {
            try await Self.verifier("http://127.0.0.1:9", key: .path("/nonexistent/roku-key")).verify(Self.claim)
        }
        #expect(fault?.kind == .notConfigured)
    }

    @Test func outageRecoversAndSlowStoreFailsWithoutLeakingTheKey() async throws {
        let fake = FakeRoku(partnerAPIKey: Self.key)
        fake.add(transactionId: "T1", fields: Self.subscription([:]))
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            faults.failNext(2, status: 503)
            guard case .verified = try await Self.verifier(base).verify(Self.claim) else { Issue.record("not recovered"); return }
            #expect(faults.requests.count == 3)
            faults.delayNext(3, by: .milliseconds(700))
            let fault = await #expect(throws: StoreFault.self) { try await Self.verifier(base, timeout: .milliseconds(300)).verify(Self.claim) }
            #expect(fault?.kind == .unavailable)
            #expect(fault.map { !"\($0)".contains(Self.key) } == true)
        }
    }
}
