import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

@Suite struct MaintenanceTests {
    @Test(arguments: TestBackend.available)
    func cleanupRemovesOnlyExpiredRowsInBatches(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let account = try await store.catalog.createAccount(email: "ada@example.com", passwordHash: "x")
            let accountID = try account.requireID()
            let tokens = TokenStore(database: store.database, now: { clock.now })
            let sessions = WebSessionStore(database: store.database, lifetime: 3_600, now: { clock.now })
            _ = try await tokens.issueCode(accountID: accountID, clientId: "d", redirectURI: "app-distribution-oauth://",
                                           challenge: TokenStoreTests.challenge, method: .s256)
            let expiredPair = try await tokens.exchange(subjectToken: try await tokens.issueInstallGrant(accountID: accountID), clientId: "d").get()
            for _ in 0..<5 { _ = try await sessions.create(accountID: accountID) }

            // 92 days later (refresh tokens live 90 days, plus a day of grace): the code, the grant, the first tokens and the sessions are long expired.
            clock.advance(92 * 86_400)
            let livePair = try await tokens.exchange(subjectToken: try await tokens.issueInstallGrant(accountID: accountID), clientId: "d").get()
            let liveSession = try await sessions.create(accountID: accountID)

            let report = try await Cleanup(database: store.database, now: { clock.now }).run(batchSize: 2)
            let removed = Dictionary(uniqueKeysWithValues: report.map { ($0.name, $0.removed) })
            #expect(removed["authorization codes"] == 1)
            #expect(removed["install grants"] == 1)
            #expect(removed["tokens"] == 2)  // the expired access and refresh token
            #expect(removed["web sessions"] == 5)
            #expect(try await tokens.authenticate(accessToken: livePair.accessToken).get().accountID == accountID)
            #expect(try await sessions.find(liveSession) != nil)
            #expect(try await tokens.authenticate(accessToken: expiredPair.accessToken) == .failure(.unknown))

            // Nothing left to do the second time.
            #expect(try await Cleanup(database: store.database, now: { clock.now }).run().allSatisfy { $0.removed == 0 })
        }
    }

    @Test(arguments: TestBackend.available)
    func oneProcessHoldsALeaseUntilItRunsOut(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let clock = TestClock()
            let lease = MaintenanceLease(database: store.database, now: { clock.now })
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for holder in 0..<8 { group.addTask { try await lease.claim("cleanup", holder: "p\(holder)", for: 600) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
            clock.advance(601)
            #expect(try await lease.claim("cleanup", holder: "late", for: 600))
            #expect(try await !lease.claim("cleanup", holder: "other", for: 600))
            #expect(try await lease.claim("cleanup", holder: "late", for: 600))  // renewal
            try await lease.release("cleanup", holder: "late")
            #expect(try await lease.claim("cleanup", holder: "other", for: 600))
        }
    }

    @Test(arguments: TestBackend.available)
    func theLedgerRecordsOneRowPerDeviceAndKeepsTheTypeForOneInstall(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let account = try await store.catalog.createAccount(email: "ada@example.com", passwordHash: "x")
            let ledger = InstallLedger(database: store.database)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let id = try account.requireID()
            #expect(try await ledger.downloadType(accountID: id, appleItemId: 7, now: start) == .download)
            #expect(try await ledger.recordInstalls(accountID: id, appleItemIds: [7, 7], device: "iphone", now: start) == [7: .download])
            #expect(try await ledger.recordInstalls(accountID: id, appleItemIds: [7], device: "iphone", now: start + 300) == [7: .download])
            #expect(try await ledger.recordInstalls(accountID: id, appleItemIds: [7], device: "ipad", now: start + 300) == [7: .redownload])
            #expect(try await ledger.recordInstalls(accountID: id, appleItemIds: [7], device: "iphone", now: start + 86_400) == [7: .redownload])
            #expect(try await ledger.downloadType(accountID: id, appleItemId: 7, now: start) == .redownload)
            let rows = try await store.database.sql.raw("SELECT COUNT(*) AS n FROM installs").first()
            #expect(try rows?.decode(column: "n", as: Int.self) == 2)
        }
    }
}
