import ArgumentParser
import Foundation
import SoukApp
@testable import SoukCLI
import SoukServe
import SQLKit
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk entitlements grant|revoke|grants` and `souk purchases events`, run in-process as `souk`
/// parses them, on both databases.
@Suite struct EntitlementGrantCommandTests {
    static let app = CommerceCatalogSamples.readerApp

    /// A data folder with the reader catalog and two accounts (one sandbox); `body` gets the settings.
    static func with(_ backend: TestBackend, _ body: ([String], SoukConfig) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var settings = ["--data-dir", folder.path + "/data"]
        var flags = ["dataDir": folder.path + "/data"]
        if case .postgres(let url) = location {
            settings += ["--database-url", url]
            flags["databaseUrl"] = url
        }
        do {
            if backend == .postgres { try await SoukCommand.run(["migrate"] + settings) }
            try CommerceCatalogSamples.readerFile.write(toFile: folder.path + "/catalog.json", atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", folder.path + "/catalog.json"] + settings)
            try await SoukCommand.run(["accounts", "create", "--email", "buyer@example.com", "--password", "correct horse"] + settings)
            try await SoukCommand.run(["accounts", "create", "--email", "tester@example.com", "--password", "correct horse", "--sandbox"]
                                      + settings)
            try await body(settings, try await SoukConfig.load(flags: flags, environment: [:]))
            await drop()
        } catch {
            await drop()
            throw error
        }
    }

    /// What `souk entitlements show` prints for the account now, and its grants.
    static func state(_ config: SoukConfig, email: String) async throws -> (shown: String, grants: [EntitlementGrant]) {
        let runtime = try await SoukRuntime.open(config, logger: testLogger())
        do {
            let account = try await runtime.catalog.requireAccount(email: email)
            let catalog = try await runtime.commerceCatalogs.state(app: app)
            let snapshot = EntitlementEngine.evaluate(try await runtime.purchases.grantedRecords(account: try account.requireID(), app: app),
                                                      catalog: catalog,
                                                      environments: EntitlementEngine.environments(accountIsSandbox: account.sandbox,
                                                                                                   allowSandbox: true),
                                                      at: Date())
            let grants = try await EntitlementGrantStore(purchases: runtime.purchases).list(account: try account.requireID(), app: app)
            await runtime.close()
            return (EntitlementsCommand.render(snapshot, balances: []), grants)
        } catch {
            await runtime.close()
            throw error
        }
    }

    /// The message `souk` prints for the error `arguments` fail with.
    static func failure(_ arguments: [String]) async -> String? {
        do {
            try await SoukCommand.run(arguments)
            return nil
        } catch {
            return SoukCommand.message(for: error)
        }
    }

    @Test(arguments: TestBackend.available)
    func aGrantShowsInTheEntitlementAnswerUntilItIsRevoked(_ backend: TestBackend) async throws {
        try await Self.with(backend) { (settings: [String], config: SoukConfig) async throws in
            #expect(try await Self.state(config, email: "buyer@example.com").shown == "No entitlements.")
            let until = RFC3339.format(Date().addingTimeInterval(30 * 86_400))
            try await SoukCommand.run(["entitlements", "grant", "--account", "buyer@example.com", "--app", Self.app,
                                       "--entitlement", "premium", "--until", until, "--reason", "support ticket 42"] + settings)
            let granted = try await Self.state(config, email: "buyer@example.com")
            let grant = try #require(granted.grants.first)
            #expect(granted.grants.count == 1)
            #expect(grant.entitlementId == "premium" && grant.environment == .production && grant.reason == "support ticket 42")
            #expect(grant.expiresAt.map(RFC3339.format) == until)
            let lines = granted.shown.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("grant") && $0.contains("premium") && $0.contains(grant.id.uuidString.lowercased()) })
            #expect(lines.contains { $0.hasPrefix("product") && $0.contains("reader.monthly") })
            #expect(!granted.shown.contains("reader.yearly"))
            let table = EntitlementsCommand.grantsTable(granted.grants, emails: [grant.accountId: "buyer@example.com"])
            #expect(table.contains("buyer@example.com") && table.contains("support ticket 42") && table.contains("Production"))
            try await SoukCommand.run(["entitlements", "grants", "--account", "buyer@example.com"] + settings)

            // For good, to the sandbox account: Sandbox.
            try await SoukCommand.run(["entitlements", "grant", "--account", "tester@example.com", "--app", Self.app,
                                       "--entitlement", "book.1"] + settings)
            let tester = try await Self.state(config, email: "tester@example.com")
            #expect(tester.grants.map(\.environment) == [.sandbox] && tester.grants.first?.expiresAt == nil)
            #expect(tester.shown.contains("reader.book.1"))

            try await SoukCommand.run(["entitlements", "revoke", "--account", "buyer@example.com", "--app", Self.app,
                                       "--entitlement", "premium"] + settings)
            let revoked = try await Self.state(config, email: "buyer@example.com")
            #expect(revoked.shown == "No entitlements.")
            #expect(revoked.grants.first?.revokedAt != nil)
            #expect(await Self.failure(["entitlements", "revoke", "--account", "buyer@example.com", "--app", Self.app,
                                        "--entitlement", "premium"] + settings)?.contains("no unrevoked grant of premium") == true)
            try await SoukCommand.run(["entitlements", "revoke", "--id", try #require(tester.grants.first).id.uuidString] + settings)
            #expect(try await Self.state(config, email: "tester@example.com").shown == "No entitlements.")
            #expect(await Self.failure(["entitlements", "revoke", "--id", UUID().uuidString] + settings)?.contains("no grant with id") == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func aBadUntilOrAnUnknownEntitlementIsAClearErrorAndGrantsNothing(_ backend: TestBackend) async throws {
        try await Self.with(backend) { (settings: [String], config: SoukConfig) async throws in
            let grant = ["entitlements", "grant", "--account", "buyer@example.com", "--app", Self.app, "--entitlement"]
            let past = await Self.failure(grant + ["premium", "--until", "2020-01-01T00:00:00Z"] + settings)
            #expect(past?.contains("2020-01-01T00:00:00Z, which is not after now") == true)
            let notADate = await Self.failure(grant + ["premium", "--until", "next tuesday"] + settings)
            #expect(notADate?.contains("--until must be an RFC 3339 date-time") == true)
            let dateOnly = await Self.failure(grant + ["premium", "--until", "2030-01-01"] + settings)
            #expect(dateOnly?.contains("--until must be an RFC 3339 date-time") == true)
            let unknown = await Self.failure(grant + ["gold"] + settings)
            #expect(unknown?.contains("\(Self.app) has no entitlement \"gold\"; its catalog declares premium, book.1.") == true)
            let noApp = await Self.failure(["entitlements", "grant", "--account", "buyer@example.com", "--app", "com.example.none",
                                            "--entitlement", "premium"] + settings)
            #expect(noApp?.contains("com.example.none has no in-app catalog") == true)
            let noAccount = await Self.failure(["entitlements", "grant", "--account", "nobody@example.com", "--app", Self.app,
                                                "--entitlement", "premium"] + settings)
            #expect(noAccount?.contains("nobody@example.com") == true)
            #expect(await Self.failure(["entitlements", "revoke", "--id", "not-a-uuid"] + settings)?.contains("--id must be a grant id") == true)
            #expect(await Self.failure(["entitlements", "revoke", "--account", "buyer@example.com"] + settings) != nil)
            #expect(try await Self.state(config, email: "buyer@example.com").grants.isEmpty)
        }
    }
}

extension EntitlementGrantCommandTests {
    @Test(arguments: TestBackend.available)
    func purchasesEventsPrintsTheTrailWithItsSources(_ backend: TestBackend) async throws {
        try await Self.with(backend) { (settings: [String], config: SoukConfig) async throws in
            try await SoukCommand.run(["entitlements", "grant", "--account", "buyer@example.com", "--app", Self.app,
                                       "--entitlement", "premium"] + settings)
            try await SoukCommand.run(["entitlements", "revoke", "--account", "buyer@example.com", "--app", Self.app,
                                       "--entitlement", "premium"] + settings)
            let runtime = try await SoukRuntime.open(config, logger: testLogger())
            let events: [CommerceEvent]
            let other: [CommerceEvent]
            do {
                let account = try await runtime.catalog.requireAccount(email: "buyer@example.com").requireID()
                let tester = try await runtime.catalog.requireAccount(email: "tester@example.com").requireID()
                // What the store paths record: a purchase reported by the app, then renewals told and re-read.
                let early = Date().addingTimeInterval(-86_400)
                for (index, source) in [LifecycleSource.intake, .notification, .reconciliation].enumerated() {
                    try await runtime.database.sql.insert(into: "commerce_events")
                        .columns("id", "app", "account_id", "type", "source", "environment", "occurred_at", "created_at", "product_id",
                                 "store", "transaction_id", "dedup_key")
                        .values(SQLBind(UUID()), SQLBind(Self.app), SQLBind(index == 2 ? tester : account),
                                SQLBind(index == 0 ? "initial_purchase" : "renewal"), SQLBind(source.rawValue), SQLBind("Production"),
                                SQLBind(early.addingTimeInterval(Double(index) * 60)), SQLBind(Date()), SQLBind("reader.monthly"),
                                SQLBind("apple_store"), SQLBind("200000000\(index)"), SQLBind("test|\(index)"))
                        .run()
                }
                events = try await PurchasesCommand.events(account: account, app: Self.app, limit: 100, database: runtime.database)
                other = try await PurchasesCommand.events(account: tester, app: Self.app, limit: 100, database: runtime.database)
                #expect(try await PurchasesCommand.events(account: account, app: Self.app, limit: 2, database: runtime.database)
                    .map(\.type) == [.grant, .grantRevoked])
                await runtime.close()
            } catch {
                await runtime.close()
                throw error
            }
            #expect(events.map(\.source) == [.intake, .notification, .operator, .operator])
            #expect(other.map(\.source) == [.reconciliation])
            let lines = PurchasesCommand.eventsTable(events).split(separator: "\n").map(String.init)
            #expect(lines.count == 5)
            #expect(lines[0].hasPrefix("OCCURRED") && lines[0].contains("SOURCE"))
            #expect(lines[1].contains("initial_purchase") && lines[1].contains(" intake ") && lines[1].contains("2000000000"))
            #expect(lines[2].contains("renewal") && lines[2].contains(" notification "))
            #expect(lines[3].contains("grant ") && lines[3].contains(" operator ") && lines[3].contains("promotional")
                && lines[3].contains("premium"))
            #expect(lines[4].contains("grant_revoked") && lines[4].contains(" operator "))
            #expect(PurchasesCommand.eventsTable([]) == "No events.")
            try await SoukCommand.run(["purchases", "events", "--account", "buyer@example.com", "--app", Self.app] + settings)
            #expect(await Self.failure(["purchases", "events", "--account", "buyer@example.com"] + settings) != nil)
            #expect(await Self.failure(["purchases", "events", "--account", "nobody@example.com", "--app", Self.app] + settings)?
                .contains("nobody@example.com") == true)
        }
    }
}
