import Foundation
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// An App Store purchase taken from its signed transaction alone (no App Store Server API answer,
/// so Souk does not know whether it renews), then `DID_CHANGE_RENEWAL_STATUS` through the route and
/// the server's queue, on both databases: turning auto-renew off is a cancellation, turning it back
/// on an uncancellation after it; turning it on first says nothing new.
@Suite struct AppleRenewalStatusTests {
    typealias Fixture = CommercePurchaseFixture
    static let app = Fixture.app

    static func with(_ backend: TestBackend, _ body: @escaping @Sendable (Fixture, Sender) async throws -> Void) async throws {
        var catalog = CommerceCatalogSamples.reader
        catalog.stores = CommerceStoreSettings(apple: AppleStoreSettings(bundleId: app, appAppleId: 1_234_567_890))
        try await Fixture.with(backend, catalog: catalog) { fixture in
            try await body(fixture, Sender(fixture: fixture))
        }
    }

    /// Posts signed notifications about one transaction and waits until the server's queue has processed them.
    struct Sender: Sendable {
        let fixture: Fixture
        let sent = Counter()

        func send(_ subtype: String, _ transaction: AppleTestTransaction) async throws {
            let note = AppleTestNotification(type: "DID_CHANGE_RENEWAL_STATUS", subtype: subtype, data: .init(
                environment: "Production", appAppleId: 1_234_567_890, bundleId: AppleRenewalStatusTests.app,
                signedTransactionInfo: fixture.chain.signTransaction(transaction), status: 1), signedDate: Date())
            let response = try await fixture.client.execute(uri: "/commerce/\(AppleRenewalStatusTests.app)/apple/notifications", method: .post,
                                                            headers: [.contentType: "application/json"],
                                                            body: ByteBuffer(data: AppleTestNotification.body(fixture.chain.sign(note))))
            #expect(response.status == .ok, "\(subtype): \(String(buffer: response.body))")
            let count = sent.next()
            let notifications = StoreNotificationStore(database: fixture.runtime.database)
            try await eventually("\(count) notifications processed") {
                try await notifications.notifications(app: AppleRenewalStatusTests.app).filter({ $0.status != .queued }).count >= count
            }
        }

        func events() async throws -> [LifecycleEventType] {
            try await CommerceEventStore(database: fixture.runtime.database).list(account: fixture.alice.account, app: AppleRenewalStatusTests.app,
                                                                                  limit: 20).map(\.type)
        }

        func willRenew() async throws -> Bool? {
            try await fixture.runtime.purchases.list(app: AppleRenewalStatusTests.app).first?.willRenew
        }
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
    }

    @Test(arguments: TestBackend.available)
    func autoRenewTurnedOffAfterAnUnknownStateIsACancellation(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, sender in
            let bought = fixture.transaction("reader.monthly")
            #expect(try await fixture.buy("reader.monthly", as: fixture.alice, bought).status == .created)
            #expect(try await sender.willRenew() == nil)
            try await sender.send("AUTO_RENEW_DISABLED", bought)
            #expect(try await sender.willRenew() == false)
            #expect(try await sender.events() == [.initialPurchase, .cancellation])
            try await sender.send("AUTO_RENEW_ENABLED", bought)
            #expect(try await sender.willRenew() == true)
            #expect(try await sender.events() == [.initialPurchase, .cancellation, .uncancellation])
        }
    }

    @Test(arguments: TestBackend.available)
    func autoRenewTurnedOnAfterAnUnknownStateSaysNothingNew(backend: TestBackend) async throws {
        try await Self.with(backend) { fixture, sender in
            let bought = fixture.transaction("reader.monthly")
            #expect(try await fixture.buy("reader.monthly", as: fixture.alice, bought).status == .created)
            try await sender.send("AUTO_RENEW_ENABLED", bought)
            #expect(try await sender.willRenew() == true)
            #expect(try await sender.events() == [.initialPurchase])
            try await sender.send("AUTO_RENEW_DISABLED", bought)
            #expect(try await sender.events() == [.initialPurchase, .cancellation])
        }
    }
}
