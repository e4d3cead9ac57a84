import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// Developer organisations, members and API keys (docs/developers.md).
@Suite struct DeveloperDirectoryTests {
    @Test(arguments: TestBackend.available)
    func organisationsHaveUniqueIdsMadeFromTheirNames(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let developers = DeveloperDirectory(database: fixture.database)
            let acme = try await developers.create(name: "Acme Games, Inc.")
            #expect(acme.id == "acme-games-inc" && acme.commissionPercent == nil)
            await #expect(throws: DeveloperDirectoryError.idTaken("acme-games-inc")) {
                try await developers.create(name: "Acme games inc")
            }
            let other = try await developers.create(name: "Acme Games, Inc.", id: "acme-2", commissionPercent: 10)
            #expect(other.commissionPercent == 10)
            await #expect(throws: DeveloperDirectoryError.invalidID("Bad Id")) { try await developers.create(name: "X", id: "Bad Id") }
            await #expect(throws: DeveloperDirectoryError.invalidCommission(101)) {
                try await developers.create(name: "Y", commissionPercent: 101)
            }
            #expect(try await developers.list().map(\.id) == ["acme-2", "acme-games-inc"])
            #expect(try await developers.setCommission(20, developer: "acme-games-inc"))
            #expect(try await developers.find("acme-games-inc")?.commissionPercent == 20)
            #expect(try await !developers.setCommission(20, developer: "nobody"))
        }
    }

    @Test(arguments: TestBackend.available)
    func anAccountBelongsToOneOrganisation(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let developers = DeveloperDirectory(database: fixture.database)
            _ = try await developers.create(name: "Acme", id: "acme")
            _ = try await developers.create(name: "Globex", id: "globex")
            let dana = try await fixture.catalog.createAccount(email: "dana@example.com", passwordHash: "x").requireID()
            let member = try await developers.addMember(developer: "acme", accountID: dana, role: .owner)
            #expect(member.email == "dana@example.com" && member.role == .owner)
            await #expect(throws: DeveloperDirectoryError.alreadyMember(developerID: "acme")) {
                try await developers.addMember(developer: "globex", accountID: dana, role: .member)
            }
            await #expect(throws: DeveloperDirectoryError.unknownDeveloper("initech")) {
                try await developers.addMember(developer: "initech", accountID: dana, role: .member)
            }
            #expect(try await developers.membership(accountID: dana)?.developerID == "acme")
            #expect(try await developers.members(of: "globex").isEmpty)
            #expect(try await !developers.removeMember(developer: "globex", accountID: dana))
            #expect(try await developers.removeMember(developer: "acme", accountID: dana))
            #expect(try await developers.membership(accountID: dana) == nil)
        }
    }

    @Test(arguments: TestBackend.available)
    func appsAndCatalogsHaveOneOwner(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let developers = DeveloperDirectory(database: fixture.database)
            _ = try await developers.create(name: "Acme", id: "acme")
            _ = try await fixture.importer.importPackage(at: try await fixture.makeSample(appleItemId: 6_500_000_001))
            _ = try await CommerceCatalogStore(database: fixture.database).apply(CommerceCatalogSamples.reader)
            let app = CommerceCatalogSamples.readerApp

            #expect(try await developers.setAppDeveloper(appleItemId: 6_500_000_001, developer: "acme"))
            #expect(try await !developers.setAppDeveloper(appleItemId: 6_500_000_999, developer: "acme"))
            await #expect(throws: DeveloperDirectoryError.unknownDeveloper("globex")) {
                try await developers.setAppDeveloper(appleItemId: 6_500_000_001, developer: "globex")
            }
            #expect(try await developers.setCatalogDeveloper(app: app, developer: "acme"))
            #expect(try await developers.appleItemIds(of: "acme") == [6_500_000_001])
            #expect(try await developers.catalogs(of: "acme") == [app])
            #expect(try await developers.owner(appleItemId: 6_500_000_001) == "acme")
            #expect(try await developers.owner(catalog: app) == "acme")
            #expect(try await developers.setCatalogDeveloper(app: app, developer: nil))
            #expect(try await developers.owner(catalog: app) == nil)
            // Versions imported before review existed, and by the operator, are released.
            let version = try #require(try await AppVersionModel.query(on: fixture.database.db).first())
            #expect(version.reviewState == .released)
        }
    }

    @Test(arguments: TestBackend.available)
    func keysAreShownOnceStoredHashedAndRevocable(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
            let developers = DeveloperDirectory(database: fixture.database, now: { clock.now })
            _ = try await developers.create(name: "Acme", id: "acme")
            _ = try await developers.create(name: "Globex", id: "globex")
            let (key, secret) = try await developers.createKey(developer: "acme", name: "CI", scopes: [.packagesWrite, .catalogWrite],
                                                               createdBy: .cli(user: "ops"))
            #expect(secret.hasPrefix("sk_") && key.hint == String(secret.suffix(4)) && key.createdBy == "cli:ops")
            let stored = try await fixture.database.sql.raw("SELECT token_hash FROM developer_api_keys").first()?
                .decode(column: "token_hash", as: String.self)
            #expect(stored == OpaqueToken.hash(secret) && stored != secret)

            let found = try #require(try await developers.authenticate(secret: secret))
            #expect(found.id == key.id && found.scopes == [.packagesWrite, .catalogWrite] && found.lastUsedAt == clock.now)
            #expect(try await developers.authenticate(secret: secret + "x") == nil)
            #expect(try await developers.authenticate(secret: "sat_" + secret.dropFirst(3)) == nil)

            #expect(try await !developers.revokeKey(key.id, developer: "globex"))  // not theirs
            #expect(try await developers.revokeKey(key.id, developer: "acme"))
            #expect(try await !developers.revokeKey(key.id))  // once
            #expect(try await developers.authenticate(secret: secret) == nil)
            #expect(try await developers.keys(of: "acme").first?.revokedAt == clock.now)
            await #expect(throws: DeveloperDirectoryError.invalidKeyName) {
                try await developers.createKey(developer: "acme", name: " ", scopes: [.metricsRead], createdBy: .cli(user: "ops"))
            }
        }
    }
}
