import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SoukApp
import SoukCore
import SoukIntegrations
@testable import SoukServer
@testable import SoukStore
import SoukTestSupport
import Testing

/// Apple's refund requests (CONSUMPTION_REQUEST) answered by the server's own workers against the
/// fake App Store Server API, on both databases: recorded first, answered with what Souk knows
/// (delivered, the share used, the app's preference), left unanswered without the consent flag,
/// retried through an outage and never marked answered before Apple takes it.
@Suite struct AppleConsumptionServerTests {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app
    static let appAppleId: Int64 = 1_234_567_890

    /// A server whose App Store Server API is `fake` (production host; faults staged with `faults`)
    /// and whose reader catalog has the fake's In-App Purchase key and `apple` settings on top.
    static func with(_ backend: TestBackend, faults: StoreFaults = StoreFaults(),
                     apple: @escaping @Sendable (inout AppleStoreSettings) -> Void,
                     _ body: @escaping @Sendable (Fixture, FakeAppStoreServerAPI) async throws -> Void) async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: app)
        let keyPath = NSTemporaryDirectory() + "souk-iap-\(UUID().uuidString).p8"
        try fake.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyPath) }
        var settings = AppleStoreSettings(appAppleId: appAppleId, keyId: fake.keyId, issuerId: fake.issuerId, privateKey: .path(keyPath))
        apple(&settings)
        var reader = CommerceCatalogSamples.reader
        reader.stores = CommerceStoreSettings(apple: settings)
        let catalog = reader
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            try await Fixture.with(backend, catalog: catalog, chain: chain, configure: { config in
                config.commerce.stores.appStoreServerAPIBaseURL = production
                config.commerce.stores.appStoreServerAPISandboxBaseURL = sandbox
                config.commerce.stores.retry = StoreRetryPolicy(base: .milliseconds(50), max: .milliseconds(200), attempts: 2,
                                                                requestTimeout: .seconds(60))
            }) { fixture in
                try await body(fixture, fake)
            }
        }
    }

    /// Alice bought 5 coins (one transaction) and used 2 of them; Apple knows the transaction.
    static func coins(_ fixture: Fixture, _ fake: FakeAppStoreServerAPI) async throws -> AppleTestTransaction {
        let transaction = fixture.transaction("reader.coins.100", quantity: 5)
        fake.add(transaction)
        #expect(try await fixture.buy("reader.coins.100", as: fixture.alice, transaction).status == .created)
        _ = try await fixture.runtime.purchases.consume(account: fixture.alice.account, app: app, productId: "reader.coins.100",
                                                        environment: .production, quantity: 2, source: .operator)
        return transaction
    }

    /// Apple's CONSUMPTION_REQUEST for `transaction`, posted as Apple posts it.
    static func requestRefund(_ fixture: Fixture, _ transaction: AppleTestTransaction, uuid: String = UUID().uuidString) async throws {
        var payload = AppleTestNotification.Payload(environment: "Production", appAppleId: appAppleId, bundleId: app,
                                                    signedTransactionInfo: fixture.chain.signTransaction(transaction))
        payload.consumptionRequestReason = "UNINTENDED_PURCHASE"
        let notification = AppleTestNotification(type: "CONSUMPTION_REQUEST", notificationUUID: uuid, data: payload)
        let response = try await fixture.client.execute(uri: "/commerce/\(app)/apple/notifications", method: .post,
                                                        headers: [.contentType: "application/json"],
                                                        body: ByteBuffer(bytes: AppleTestNotification.body(fixture.chain.sign(notification))))
        #expect(response.status == .ok)
    }

    static func requests(_ fixture: Fixture) async throws -> [AppleConsumptionRequestRecord] {
        try await AppleConsumptionStore(database: fixture.runtime.database).requests(app: app)
    }

    @Test(arguments: TestBackend.available)
    func aRefundRequestIsAnsweredWithWhatSoukKnows(backend: TestBackend) async throws {
        try await Self.with(backend, apple: { $0.sendConsumptionInfo = true; $0.refundPreference = .prorated }) { fixture, fake in
            let transaction = try await Self.coins(fixture, fake)
            try await Self.requestRefund(fixture, transaction, uuid: "refund-1")
            try await eventually("the refund request is answered") {
                try await Self.requests(fixture).first?.status == .answered
            }
            let sent = try #require(fake.consumptionAnswers.first)
            #expect(sent.version == "v2" && sent.transactionId == transaction.transactionId)
            #expect(sent.fields == ["customerConsented": "true", "sampleContentProvided": "false", "deliveryStatus": "DELIVERED",
                                    "consumptionPercentage": "40000", "refundPreference": "GRANT_PRORATED"])
            let record = try #require(try await Self.requests(fixture).first)
            #expect(record.reason == "UNINTENDED_PURCHASE" && record.endpoint == "v2" && record.reply == "202 Accepted")
            #expect(abs(record.deadline.timeIntervalSince(record.requestedAt) - 12 * 3600) < 1)

            // What the operator sees (souk stores notifications): the request, Souk's answer and Apple's reply.
            // The notification's summary is written once its handler returns, which may be after the
            // worker has already answered the request it recorded.
            try await eventually("the notification is summarised") {
                let notifications = try await StoreNotificationStore(database: fixture.runtime.database).notifications(app: Self.app, store: nil, limit: 10)
                return notifications.first { $0.received.notificationId == "refund-1" }?.summary?
                    .contains("refund request (UNINTENDED_PURCHASE) recorded, answer due by") == true
            }
            #expect(record.summary.hasPrefix("answered; sent v2 {") && record.summary.contains("\"consumptionPercentage\":40000")
                    && record.summary.hasSuffix("Apple: 202 Accepted"))

            // Apple's redelivery of the same notification answers nothing twice.
            try await Self.requestRefund(fixture, transaction, uuid: "refund-1")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await Self.requests(fixture).count == 1 && fake.consumptionAnswers.count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutTheConsentFlagTheRequestIsRecordedAndNotAnswered(backend: TestBackend) async throws {
        try await Self.with(backend, apple: { $0.refundPreference = .decline }) { fixture, fake in
            let transaction = try await Self.coins(fixture, fake)
            try await Self.requestRefund(fixture, transaction)
            try await eventually("the refund request is recorded") {
                try await Self.requests(fixture).first?.status == .notAnswered
            }
            #expect(try await Self.requests(fixture).first?.detail?.contains("sendConsumptionInfo is off") == true)
            #expect(fake.consumptionAnswers.isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func anOutageIsRetriedAndNeverMarkedAnswered(backend: TestBackend) async throws {
        let faults = StoreFaults()
        try await Self.with(backend, faults: faults, apple: { $0.sendConsumptionInfo = true }) { fixture, fake in
            let transaction = try await Self.coins(fixture, fake)
            faults.down()
            try await Self.requestRefund(fixture, transaction)
            try await eventually("an attempt failed and is to be retried") {
                guard let record = try await Self.requests(fixture).first else { return false }
                return record.status == .pending && record.attempts >= 2 && record.reply?.contains("503") == true
            }
            #expect(fake.consumptionAnswers.isEmpty)
            faults.recover()
            try await eventually("the refund request is answered once Apple is back") {
                try await Self.requests(fixture).first?.status == .answered
            }
            // No preference configured: none is sent.
            #expect(fake.consumptionAnswers.first?.fields["refundPreference"] == nil)
        }
    }
}
