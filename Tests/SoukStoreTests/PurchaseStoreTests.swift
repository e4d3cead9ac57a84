import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The purchase tables on both databases, fed `VerifiedPurchase` values directly (the server tests
/// sign real JWS).
@Suite struct PurchaseStoreTests {
    static let app = CommerceCatalogSamples.readerApp
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    struct Context {
        let fixture: StoreFixture
        let store: PurchaseStore
        let catalog: CommerceCatalogState
        let alice: UUID
        let bob: UUID

        func product(_ id: String) -> ProductDefinition { catalog.product(id)! }

        func intake(_ productId: String, transaction: String, account: UUID? = nil, event: String? = nil) -> PurchaseIntake {
            let product = product(productId)
            return PurchaseIntake(account: account ?? alice, product: product,
                                  claim: PurchaseClaim(store: .appleStore, app: PurchaseStoreTests.app, storeProductId: product.skus[.appleStore] ?? "",
                                                       transactionId: transaction, receipt: "jws-\(transaction)"),
                                  event: event.map { PurchaseEventKey(app: PurchaseStoreTests.app, source: "reader://test", id: $0) })
        }

        func verified(_ productId: String, transaction: String, original: String? = nil, purchased: Date = PurchaseStoreTests.start,
                      expires: Date? = nil, revoked: Date? = nil, signed: Date = PurchaseStoreTests.start, quantity: Int = 1,
                      environment: CommerceEnvironment = .production) -> VerifiedPurchase {
            let product = product(productId)
            return VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: original ?? transaction,
                                    storeProductId: product.skus[.appleStore] ?? "", type: product.type, purchaseDate: purchased,
                                    expiresDate: expires, revocationDate: revoked, quantity: quantity, environment: environment,
                                    app: PurchaseStoreTests.app, signedDate: signed)
        }

        func record(_ intake: PurchaseIntake, _ verified: VerifiedPurchase, policy: TransferPolicy = .transfer,
                    pending: UUID? = nil) async throws -> IntakeOutcome {
            try await store.record(intake, verified: verified, environment: verified.environment, policy: policy, catalog: catalog,
                                   pendingPayment: pending)
        }

        func count(_ table: String) async throws -> Int {
            try await fixture.database.sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()!.decode(column: "n", as: Int.self)
        }
    }

    static func with(_ backend: TestBackend, now: @escaping @Sendable () -> Date = { start.addingTimeInterval(60) },
                     _ body: @escaping @Sendable (Context) async throws -> Void) async throws {
        try await StoreFixture.with(backend) { fixture in
            let catalogs = CommerceCatalogStore(database: fixture.database)
            _ = try await catalogs.apply(CommerceCatalogSamples.reader)
            let alice = AccountModel(email: "alice@example.com", passwordHash: "x")
            try await alice.create(on: fixture.database.db)
            let bob = AccountModel(email: "bob@example.com", passwordHash: "x")
            try await bob.create(on: fixture.database.db)
            try await body(Context(fixture: fixture, store: PurchaseStore(database: fixture.database, now: now),
                                   catalog: try #require(try await catalogs.state(app: app)), alice: alice.id!, bob: bob.id!))
        }
    }

    @Test(arguments: TestBackend.available)
    func aTransactionIsRecordedOnceAndEveryCopyAnswersTheSamePayment(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let first = try await c.record(c.intake("reader.monthly", transaction: "1000", event: "e1"),
                                           c.verified("reader.monthly", transaction: "1000", expires: Self.start.addingTimeInterval(86_400)))
            guard case .granted(let payment) = first else { Issue.record("not granted: \(first)"); return }
            // The same transaction reported by another event, and the same event again.
            #expect(try await c.record(c.intake("reader.monthly", transaction: "1000", event: "e2"),
                                       c.verified("reader.monthly", transaction: "1000")) == .granted(paymentId: payment))
            #expect(try await c.store.payment(for: PurchaseEventKey(app: Self.app, source: "reader://test", id: "e2"))?.paymentId == payment)
            #expect(try await c.count("purchases") == 1)
            let records = try await c.store.grantedRecords(account: c.alice, app: Self.app)
            #expect(records == [PurchaseRecord(paymentId: payment, productId: "reader.monthly", type: .autoRenewable, environment: .production,
                                               purchaseDate: Self.start, expiresDate: Self.start.addingTimeInterval(86_400))])
            #expect(try await c.store.grantedRecords(account: c.bob, app: Self.app).isEmpty)
            #expect(try await c.store.grantedRecords(account: c.alice, app: "com.example.other").isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func fiftyConcurrentCopiesGrantAndCreditOnce(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let outcomes = try await withThrowingTaskGroup(of: IntakeOutcome.self) { group in
                for index in 0..<50 {
                    // Half are copies of one event, half new events for the same transaction.
                    let event = index.isMultiple(of: 2) ? "same" : "copy-\(index)"
                    group.addTask {
                        try await c.record(c.intake("reader.coins.100", transaction: "2000", event: event),
                                           c.verified("reader.coins.100", transaction: "2000", quantity: 3))
                    }
                }
                return try await group.reduce(into: [IntakeOutcome]()) { $0.append($1) }
            }
            #expect(Set(outcomes.compactMap(\.paymentId)).count == 1)
            #expect(outcomes.allSatisfy { if case .granted = $0 { true } else { false } })
            #expect(try await c.count("purchases") == 1)
            #expect(try await c.count("purchase_events") == 26)
            #expect(try await c.store.balances(account: c.alice, app: Self.app) == [ConsumableBalance(productId: "reader.coins.100", environment: .production, balance: 3)])
            #expect(try await c.store.revision() == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func theTransferPolicyMovesOrKeepsATransactionOwnedByAnotherAccount(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let expires = Self.start.addingTimeInterval(30 * 86_400)
            // keep: Bob is refused, Alice keeps it.
            let first = try await c.record(c.intake("reader.monthly", transaction: "3000"), c.verified("reader.monthly", transaction: "3000", expires: expires))
            let kept = try await c.record(c.intake("reader.monthly", transaction: "3000", account: c.bob),
                                          c.verified("reader.monthly", transaction: "3000", expires: expires), policy: .keep)
            #expect(kept == .refused(paymentId: nil, .ownedByAnotherAccount(kept.refusalDetail)))
            // transfer-if-inactive: Alice's subscription is active, so it stays.
            let active = try await c.record(c.intake("reader.monthly", transaction: "3000", account: c.bob),
                                            c.verified("reader.monthly", transaction: "3000", expires: expires), policy: .transferIfInactive)
            #expect(active.paymentId == nil)
            #expect(try await c.store.grantedRecords(account: c.alice, app: Self.app).count == 1)
            // transfer: a renewal of the same original transaction moves the whole subscription to Bob.
            let moved = try await c.record(c.intake("reader.monthly", transaction: "3001", account: c.bob),
                                           c.verified("reader.monthly", transaction: "3001", original: "3000", purchased: expires,
                                                      expires: expires.addingTimeInterval(30 * 86_400)), policy: .transfer)
            #expect(moved.paymentId != nil && moved.paymentId != first.paymentId)
            #expect(try await c.store.grantedRecords(account: c.alice, app: Self.app).isEmpty)
            #expect(try await c.store.grantedRecords(account: c.bob, app: Self.app).count == 2)
            #expect(try await c.count("purchase_transfers") == 1)
            // Presented again by Bob: already his, nothing moves.
            #expect(try await c.record(c.intake("reader.monthly", transaction: "3000", account: c.bob),
                                       c.verified("reader.monthly", transaction: "3000", expires: expires)) == first)
            #expect(try await c.count("purchase_transfers") == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func transferIfInactiveMovesAnExpiredSubscription(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let ended = Self.start.addingTimeInterval(30)
            let first = try await c.record(c.intake("reader.monthly", transaction: "3100"), c.verified("reader.monthly", transaction: "3100", expires: ended))
            let moved = try await c.record(c.intake("reader.monthly", transaction: "3100", account: c.bob),
                                           c.verified("reader.monthly", transaction: "3100", expires: ended), policy: .transferIfInactive)
            #expect(moved == first)
            #expect(try await c.store.list(account: c.bob).map(\.paymentId) == [first.paymentId!])
        }
    }

    @Test(arguments: TestBackend.available)
    func aLaterSignedStatementUpdatesExpiryAndRevocationAndAnOlderOneDoesNot(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let expires = Self.start.addingTimeInterval(86_400)
            let payment = try await c.record(c.intake("reader.monthly", transaction: "4000"),
                                             c.verified("reader.monthly", transaction: "4000", expires: expires, signed: Self.start)).paymentId!
            let refunded = Self.start.addingTimeInterval(600)
            _ = try await c.record(c.intake("reader.monthly", transaction: "4000"),
                                   c.verified("reader.monthly", transaction: "4000", expires: expires, revoked: refunded, signed: refunded))
            _ = try await c.record(c.intake("reader.monthly", transaction: "4000"),
                                   c.verified("reader.monthly", transaction: "4000", expires: expires.addingTimeInterval(9999), signed: Self.start))
            let stored = try #require(try await c.store.payment(payment))
            #expect(stored.revokedAt == refunded)
            #expect(stored.expiresDate == expires)
            #expect(stored.signedDate == refunded)
        }
    }

    @Test(arguments: TestBackend.available)
    func consumablesAreConsumedButNeverBelowZeroAndARefundTakesThemBack(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let payment = try await c.record(c.intake("reader.coins.100", transaction: "5000"),
                                             c.verified("reader.coins.100", transaction: "5000", quantity: 5)).paymentId!
            _ = try await c.record(c.intake("reader.coins.100", transaction: "5001"), c.verified("reader.coins.100", transaction: "5001", quantity: 2))
            let results = try await withThrowingTaskGroup(of: Result<Int, PurchaseStore.ConsumeFailure>.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await c.store.consume(account: c.alice, app: Self.app, productId: "reader.coins.100", environment: .production) }
                }
                return try await group.reduce(into: [Result<Int, PurchaseStore.ConsumeFailure>]()) { $0.append($1) }
            }
            #expect(results.filter { if case .success = $0 { true } else { false } }.count == 7)
            #expect(try await c.store.consume(account: c.alice, app: Self.app, productId: "reader.coins.100", environment: .production)
                    == .failure(.insufficient(balance: 0)))
            #expect(try await c.store.consume(account: c.alice, app: Self.app, productId: "reader.coins.100", environment: .sandbox)
                    == .failure(.insufficient(balance: 0)))
            #expect(try await c.store.balances(account: c.alice, app: Self.app).map(\.balance) == [0])
            // Consumables never reach the entitlement engine as access.
            let snapshot = EntitlementEngine.evaluate(try await c.store.grantedRecords(account: c.alice, app: Self.app), catalog: c.catalog,
                                                      environments: [.production], at: Self.start)
            #expect(snapshot.products.isEmpty)
            // A refund after some were used: the balance stays at zero, never negative.
            #expect(try await c.store.revoke(payment)?.revokedAt != nil)
            #expect(try await c.store.balances(account: c.alice, app: Self.app).map(\.balance) == [0])
            // A revoked consumable recorded later is never credited.
            _ = try await c.record(c.intake("reader.coins.100", transaction: "5002"),
                                   c.verified("reader.coins.100", transaction: "5002", revoked: Self.start, signed: Self.start))
            #expect(try await c.store.balances(account: c.alice, app: Self.app).map(\.balance) == [0])
        }
    }

    @Test(arguments: TestBackend.available)
    func revokingEndsAccessOnce(backend: TestBackend) async throws {
        let clock = TestClock(Self.start.addingTimeInterval(60))
        try await Self.with(backend, now: { clock.now }) { c in
            let payment = try await c.record(c.intake("reader.yearly", transaction: "6000"),
                                             c.verified("reader.yearly", transaction: "6000", expires: Self.start.addingTimeInterval(365 * 86_400))).paymentId!
            let before = try await c.store.revision()
            let revoked = try #require(try await c.store.revoke(payment, reason: "refund"))
            #expect(revoked.revokedAt == clock.now)
            #expect(revoked.revocationReason == "refund")
            clock.advance(60)
            #expect(try await c.store.revoke(payment)?.revokedAt == revoked.revokedAt)
            #expect(try await c.store.revision() == before + 1)
            let snapshot = EntitlementEngine.evaluate(try await c.store.grantedRecords(account: c.alice, app: Self.app), catalog: c.catalog,
                                                      environments: [.production], at: clock.now)
            #expect(snapshot.access(to: "premium") == nil)
            #expect(try await c.store.revoke(UUID()) == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPendingPurchaseIsClaimedByOneWorkerThenSettled(backend: TestBackend) async throws {
        let clock = TestClock(Self.start)
        try await Self.with(backend, now: { clock.now }) { c in
            let intake = c.intake("reader.book.1", transaction: "7000", event: "p1")
            let pending = try await c.store.recordPending(intake)
            guard case .pending(let payment) = pending else { Issue.record("not pending: \(pending)"); return }
            // A copy of the event, and a retry with a new event id, answer the same payment.
            #expect(try await c.store.recordPending(intake) == pending)
            #expect(try await c.store.recordPending(c.intake("reader.book.1", transaction: "7000", event: "p2")) == pending)
            #expect(try await c.count("purchases") == 1)
            let claimed = try #require(try await c.store.claimPending())
            #expect(claimed.paymentId == payment && claimed.attempts == 1)
            #expect(claimed.claim == intake.claim)
            #expect(try await c.store.claimPending() == nil)
            try await c.store.postpone(claimed, reason: "store unreachable")
            #expect(try await c.store.claimPending() == nil)
            clock.advance(PurchaseStore.retryDelay(afterAttempts: 1))
            let again = try #require(try await c.store.claimPending())
            #expect(again.attempts == 2)
            // The verdict arrives: the same payment is granted, the receipt dropped.
            var verified = c.verified("reader.coins.100", transaction: "7000")
            verified.storeProductId = "com.example.reader.book1"
            verified.type = .nonConsumable
            #expect(try await c.record(intake, verified, pending: payment) == .granted(paymentId: payment))
            let stored = try #require(try await c.store.payment(payment))
            #expect(stored.status == .granted && stored.transactionId == "7000")
            let receipt = try await c.fixture.database.sql.raw("SELECT receipt FROM purchases").first()!.decode(column: "receipt", as: String?.self)
            #expect(receipt == nil)
            #expect(try await c.store.claimPending() == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func aPendingPurchaseOfATransactionRecordedMeanwhileJoinsIt(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let pending = try await c.store.recordPending(c.intake("reader.monthly", transaction: "8000-claimed", event: "slow")).paymentId!
            let recorded = try await c.record(c.intake("reader.monthly", transaction: "8000", event: "fast"),
                                              c.verified("reader.monthly", transaction: "8000")).paymentId!
            #expect(recorded != pending)
            #expect(try await c.record(c.intake("reader.monthly", transaction: "8000-claimed", event: "slow"),
                                       c.verified("reader.monthly", transaction: "8000"), pending: pending) == .granted(paymentId: recorded))
            #expect(try await c.store.payment(pending) == nil)
            #expect(try await c.store.payment(for: PurchaseEventKey(app: Self.app, source: "reader://test", id: "slow"))?.paymentId == recorded)
            #expect(try await c.count("purchases") == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRefusedPendingPurchaseAnswersItsRefusal(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            let payment = try await c.store.recordPending(c.intake("reader.monthly", transaction: "9000", event: "bad")).paymentId!
            try await c.store.refusePending(payment, app: Self.app, .invalidSignature("chain"))
            let stored = try #require(try await c.store.payment(for: PurchaseEventKey(app: Self.app, source: "reader://test", id: "bad")))
            #expect(stored.status == .refused && stored.refusal == .invalidSignature("chain"))
            #expect(IntakeOutcome(stored) == .refused(paymentId: payment, .invalidSignature("chain")))
            #expect(try await c.store.claimPending() == nil)
            #expect(try await c.store.grantedRecords(account: c.alice, app: Self.app).isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func everyWriteAppendsOneChangePerAccount(backend: TestBackend) async throws {
        try await Self.with(backend) { c in
            _ = try await c.record(c.intake("reader.monthly", transaction: "10"), c.verified("reader.monthly", transaction: "10"))
            _ = try await c.record(c.intake("reader.monthly", transaction: "10"), c.verified("reader.monthly", transaction: "10"))
            #expect(try await c.store.revision() == 1)
            _ = try await c.record(c.intake("reader.monthly", transaction: "10", account: c.bob), c.verified("reader.monthly", transaction: "10"))
            #expect(try await c.store.revision() == 3)
            let rows = try await c.fixture.database.sql.raw("SELECT revision, account_id FROM commerce_changes ORDER BY revision").all()
            #expect(try rows.map { try $0.decode(column: "revision", as: Int64.self) } == [1, 2, 3])
            #expect(Set(try rows.dropFirst().map { try $0.decode(column: "account_id", as: UUID.self) }) == [c.alice, c.bob])
        }
    }
}

extension IntakeOutcome {
    var refusalDetail: String {
        if case .refused(_, let refusal) = self { return refusal.detail }
        return ""
    }
}
