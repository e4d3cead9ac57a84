import Foundation
import SQLKit
import SoukCore
@testable import SoukStore
import SoukTestSupport
import Synchronization
import Testing

/// Two purchase writes that lock the same two balances in opposite order, on both databases. On
/// PostgreSQL they deadlock (each waits for the other's row); PostgreSQL ends one of them, and
/// `write` runs it again instead of failing it; on SQLite writers take turns. Either way both
/// changes are recorded, once.
@Suite struct PurchaseWriteConflictTests {
    typealias Base = PurchaseStoreTests
    static let app = Base.app

    /// Both writers hold their first row before either asks for its second.
    final class Gate: Sendable {
        private let state = Mutex((arrived: 0, attempts: [String: Int]()))

        /// Which attempt of `writer` this is (1 for the first).
        func attempt(_ writer: String) -> Int {
            state.withLock { state in
                state.attempts[writer, default: 0] += 1
                return state.attempts[writer]!
            }
        }

        func arriveAndWait() async throws {
            state.withLock { $0.arrived += 1 }
            for _ in 0..<1000 where state.withLock({ $0.arrived }) < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        var attempts: [String: Int] { state.withLock { $0.attempts } }
    }

    static func add(_ product: String, account: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            UPDATE consumable_balances SET balance = balance + 1
            WHERE app = \(bind: app) AND account_id = \(bind: account) AND product_id = \(bind: product)
            """).run()
    }

    @Test(arguments: TestBackend.available)
    func aWriteEndedByADeadlockIsRunAgain(backend: TestBackend) async throws {
        try await Base.with(backend) { c in
            let sql = c.fixture.database.sql
            for product in ["first", "second"] {
                try await sql.raw("""
                    INSERT INTO consumable_balances (id, app, account_id, product_id, environment, balance)
                    VALUES (\(bind: UUID()), \(bind: Self.app), \(bind: c.alice), \(bind: product), 'Production', 0)
                    """).run()
            }
            let gate = Gate()
            // On SQLite the second writer waits for the first to finish: only PostgreSQL meets at the gate.
            let meet = c.fixture.database.location.isPostgres
            let alice = c.alice
            func writer(_ name: String, _ order: [String]) async throws {
                try await c.store.write(app: Self.app, key: "conflict-\(name)") { sql, changes in
                    let attempt = gate.attempt(name)
                    try await Self.add(order[0], account: alice, on: sql)
                    if meet, attempt == 1 { try await gate.arriveAndWait() }
                    try await Self.add(order[1], account: alice, on: sql)
                    changes.accounts.insert(alice)
                }
            }
            async let one: Void = writer("one", ["first", "second"])
            async let two: Void = writer("two", ["second", "first"])
            _ = try await (one, two)

            #expect(try await c.store.balances(account: c.alice, app: Self.app).map(\.balance) == [2, 2])
            // Only committed attempts count as changes.
            #expect(try await c.store.revision() == 2)
            if meet {
                #expect(gate.attempts.values.sorted() == [1, 2], "PostgreSQL ended one writer, which ran again: \(gate.attempts)")
            }
        }
    }
}
