import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// An intake that learned nothing of auto-renew (an Apple purchase without an App Store Server API
/// answer) followed by the store's statements, on both databases: "will not renew" is a
/// cancellation, and the re-enable after it an uncancellation; "will renew" says nothing new.
@Suite struct UnknownRenewalStateTests {
    typealias Base = PurchaseStoreTests
    static let app = Base.app
    static let start = Base.start

    static func monthly(_ c: Base.Context, signed: TimeInterval, lifecycle: StoreLifecycle?) -> VerifiedPurchase {
        var verified = c.verified("reader.monthly", transaction: "700", expires: start.addingTimeInterval(30 * 86_400),
                                  signed: start.addingTimeInterval(signed))
        verified.lifecycle = lifecycle
        return verified
    }

    static func apply(_ c: Base.Context, _ statement: VerifiedPurchase) async throws -> LifecycleApplyOutcome {
        try await c.store.apply(statement, app: app, source: .notification, catalog: c.catalog)
    }

    @Test(arguments: TestBackend.available)
    func willNotRenewAfterAnUnknownStateIsACancellation(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            guard case .granted(let payment) = try await c.record(c.intake("reader.monthly", transaction: "700"),
                                                                  Self.monthly(c, signed: 0, lifecycle: nil)) else {
                Issue.record("not granted"); return
            }
            #expect(try await c.store.payment(payment)?.willRenew == nil)
            let off = Self.monthly(c, signed: 10, lifecycle: StoreLifecycle(state: .cancelled, willRenew: false))
            #expect(try await Self.apply(c, off) == .applied(paymentId: payment, events: [.cancellation]))
            let on = Self.monthly(c, signed: 20, lifecycle: StoreLifecycle(state: .active, willRenew: true))
            #expect(try await Self.apply(c, on) == .applied(paymentId: payment, events: [.uncancellation]))
            let events = try await CommerceEventStore(database: c.fixture.database).list(account: c.alice, app: Self.app, limit: 10)
            #expect(events.map(\.type) == [.initialPurchase, .cancellation, .uncancellation])
        }
    }

    @Test(arguments: TestBackend.available)
    func willRenewAfterAnUnknownStateSaysNothingNew(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            guard case .granted(let payment) = try await c.record(c.intake("reader.monthly", transaction: "700"),
                                                                  Self.monthly(c, signed: 0, lifecycle: nil)) else {
                Issue.record("not granted"); return
            }
            let on = Self.monthly(c, signed: 10, lifecycle: StoreLifecycle(state: .active, willRenew: true))
            #expect(try await Self.apply(c, on) == .applied(paymentId: payment, events: []))
            // Then turned off: a cancellation, as from a known state.
            let off = Self.monthly(c, signed: 20, lifecycle: StoreLifecycle(state: .cancelled, willRenew: false))
            #expect(try await Self.apply(c, off) == .applied(paymentId: payment, events: [.cancellation]))
        }
    }
}
