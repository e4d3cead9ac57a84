import Foundation
@testable import SoukCLI
import SQLKit
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing
import SoukApp

/// `souk developers add|list|show|set-commission|member|keys`, `souk apps create --developer`,
/// `souk apps set-developer` and `souk catalog set-developer`, run in-process as `souk` parses them,
/// on both databases: what they change, that each change is audited as `cli:<user>`, and their errors.
@Suite struct DevelopersCommandTests {
    static let app = "org.acme.reader"

    @Test(arguments: TestBackend.available)
    func organisationsMembersAndOwnershipAreManagedAndAudited(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            try await SoukCommand.run(["developers", "add", "--name", "Acme Games", "--commission", "12"] + settings)
            try await SoukCommand.run(["developers", "add", "--name", "Beta", "--id", "beta"] + settings)
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["developers", "add", "--name", "Acme Games"] + settings) }
            try await SoukCommand.run(["developers", "list"] + settings)
            try await SoukCommand.run(["developers", "set-commission", "--id", "beta", "--percent", "20"] + settings)
            try await SoukCommand.run(["developers", "set-commission", "--id", "acme-games", "--default"] + settings)
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["developers", "set-commission", "--id", "nobody", "--percent", "5"] + settings) }
            await #expect(throws: (any Error).self) { try await SoukCommand.run(["developers", "set-commission", "--id", "beta"] + settings) }

            try await SoukCommand.run(["developers", "member", "add", "--developer", "acme-games", "--email", "tester@example.com", "--role", "owner"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["developers", "member", "add", "--developer", "beta", "--email", "tester@example.com", "--role", "member"] + settings)
            }
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["developers", "member", "add", "--developer", "beta", "--email", "nobody@example.com", "--role", "member"] + settings)
            }
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["developers", "member", "add", "--developer", "nobody", "--email", "tester@example.com", "--role", "member"] + settings)
            }

            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6600000001", "--bundle-id", Self.app, "--name", "Reader",
                                       "--developer", "acme-games"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["apps", "create", "--apple-item-id", "6600000002", "--bundle-id", "org.x", "--name", "X",
                                           "--developer", "nobody"] + settings)
            }
            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6600000003", "--bundle-id", "org.beta.app", "--name", "B"] + settings)
            try await SoukCommand.run(["apps", "set-developer", "--apple-item-id", "6600000003", "--developer", "beta"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["apps", "set-developer", "--apple-item-id", "6600000009", "--developer", "beta"] + settings)
            }
            let catalog = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID()).json").path
            try Data(CommerceCatalogSamples.readerFile.replacingOccurrences(of: CommerceCatalogSamples.readerApp, with: Self.app).utf8)
                .write(to: URL(fileURLWithPath: catalog))
            defer { try? FileManager.default.removeItem(atPath: catalog) }
            try await SoukCommand.run(["catalog", "apply", catalog] + settings)
            try await SoukCommand.run(["catalog", "set-developer", "--app", Self.app, "--developer", "acme-games"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["catalog", "set-developer", "--app", "org.none", "--developer", "acme-games"] + settings)
            }
            try await SoukCommand.run(["developers", "show", "--id", "acme-games"] + settings)

            try await WebhooksCommandTests.withRuntime(config) { (runtime: SoukRuntime) async throws in
                let directory = DeveloperDirectory(database: runtime.database)
                let acme = try #require(try await directory.find("acme-games"))
                #expect(acme.name == "Acme Games" && acme.commissionPercent == nil)
                #expect(try await directory.find("beta")?.commissionPercent == 20)
                #expect(try await directory.members(of: "acme-games").map(\.email) == ["tester@example.com"])
                #expect(try await directory.appleItemIds(of: "acme-games") == [6_600_000_001])
                #expect(try await directory.appleItemIds(of: "beta") == [6_600_000_003])
                #expect(try await directory.catalogs(of: "acme-games") == [Self.app])
                // The organisation's name is what the storefront shows unless --developer-name says otherwise.
                #expect(try await runtime.catalog.app(appleItemId: 6_600_000_001).developerName == "Acme Games")
                let overview = try await DeveloperOperations(runtime: runtime).overview(actor: .currentCLIUser, developer: "acme-games")
                let shown = DevelopersCommand.render(overview, defaultCommission: 15)
                #expect(shown.contains("tester@example.com  owner") && shown.contains("6600000001") && shown.contains(Self.app))
                #expect(shown.contains("15% (the server's default)"))

                let entries = try await AuditLog(database: runtime.database).list(limit: 100)
                let actions = Set(entries.filter { $0.actor == SoukActor.currentCLIUser.auditName }.map(\.action))
                #expect(actions.isSuperset(of: ["developer.create", "developer.commission", "developer.member-add", "app.create", "app.set-developer",
                                               "catalog.set-developer"]))
            }

            try await SoukCommand.run(["developers", "member", "remove", "--developer", "acme-games", "--email", "tester@example.com"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["developers", "member", "remove", "--developer", "acme-games", "--email", "tester@example.com"] + settings)
            }
            try await SoukCommand.run(["apps", "set-developer", "--apple-item-id", "6600000003", "--none"] + settings)
            try await SoukCommand.run(["catalog", "set-developer", "--app", Self.app, "--none"] + settings)
            try await WebhooksCommandTests.withRuntime(config) { (runtime: SoukRuntime) async throws in
                let directory = DeveloperDirectory(database: runtime.database)
                #expect(try await directory.members(of: "acme-games").isEmpty)
                #expect(try await directory.owner(appleItemId: 6_600_000_003) == nil)
                #expect(try await directory.owner(catalog: Self.app) == nil)
                #expect(try await AuditLog(database: runtime.database).list(action: "developer.member-remove").count == 1)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func keysAreMadeListedAndRevokedWithoutTheSecretKept(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            try await SoukCommand.run(["developers", "add", "--name", "Acme", "--id", "acme"] + settings)
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["developers", "keys", "create", "--developer", "acme", "--scopes", "packages:write,root"] + settings)
            }
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["developers", "keys", "create", "--developer", "nobody", "--scopes", "packages:write"] + settings)
            }
            try await SoukCommand.run(["developers", "keys", "create", "--developer", "acme", "--scopes", "packages:write,catalog:write",
                                       "--name", "ci"] + settings)
            try await SoukCommand.run(["developers", "keys", "list", "--developer", "acme"] + settings)
            let key = try await WebhooksCommandTests.withRuntime(config) { (runtime: SoukRuntime) async throws -> DeveloperAPIKey in
                let keys = try await DeveloperDirectory(database: runtime.database).keys(of: "acme")
                #expect(keys.count == 1 && keys.first?.name == "ci" && keys.first?.scopes == [.packagesWrite, .catalogWrite])
                let audit = try await AuditLog(database: runtime.database).list(action: "developer.key-create")
                #expect(audit.first?.actor == SoukActor.currentCLIUser.auditName && audit.first?.after?.contains("sk_") == false)
                return try #require(keys.first)
            }
            #expect(DevelopersCommand.render(keys: [key]).contains("sk_…\(key.hint)"))
            try await SoukCommand.run(["developers", "keys", "revoke", "--id", key.id.uuidString] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["developers", "keys", "revoke", "--id", key.id.uuidString] + settings)
            }
            try await WebhooksCommandTests.withRuntime(config) { (runtime: SoukRuntime) async throws in
                #expect(try await DeveloperDirectory(database: runtime.database).key(key.id)?.revokedAt != nil)
                #expect(try await AuditLog(database: runtime.database).list(action: "developer.key-revoke").count == 1)
            }
        }
    }
}
