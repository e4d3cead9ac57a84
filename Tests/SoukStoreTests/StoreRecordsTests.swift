import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The values the stores hand the server, the operations and the commands instead of Fluent
/// models (`AccountRecord`, `AccountCredentials`, `AppRecord`, `AppVersionRecord`,
/// `MarketplaceIdentity`), on both databases: each says what the row says, and each write lands.
@Suite struct StoreRecordsTests {
    @Test(arguments: TestBackend.available)
    func accountsComeAsRecordsWithTheirDeviceLimitAndCredentials(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let people = store.catalog.people
            let ada = try await people.create(email: " Ada@Example.com ", passwordHash: "hash-1", sandbox: true)
            #expect(ada.email == "ada@example.com" && ada.sandbox && ada.role == .customer && ada.deviceLimit == nil)
            #expect(AccountRecord.normalize(email: " Ada@Example.COM") == "ada@example.com")

            #expect(try await people.setDeviceLimit(3, account: ada.id))
            #expect(try await people.account(id: ada.id)?.deviceLimit == 3)
            #expect(try await people.setDeviceLimit(nil, account: ada.id))
            #expect(try await people.account(id: ada.id)?.deviceLimit == nil)
            #expect(try await !people.setDeviceLimit(3, account: UUID()))

            let credentials = try #require(try await people.credentials(email: "ADA@example.com"))
            #expect(credentials.account.id == ada.id && credentials.passwordHash == "hash-1")
            try await people.setPasswordHash("hash-2", account: ada.id)
            #expect(try await people.credentials(id: ada.id)?.passwordHash == "hash-2")
            #expect(try await people.credentials(email: "nobody@example.com") == nil)

            // A web session carries the account as a record.
            let sessions = WebSessionStore(database: store.database)
            let cookie = try await sessions.create(accountID: ada.id)
            let session = try #require(try await sessions.find(cookie))
            #expect(session.account.id == ada.id && session.account.email == ada.email && session.account.sandbox)
        }
    }

    @Test(arguments: TestBackend.available)
    func appsAndTheMarketplaceComeAsValues(_ backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { store in
            let catalog = store.catalog
            #expect(try await !catalog.hasApp(appleItemId: 6_500_000_001))
            let created = try await catalog.createApp(NewApp(appleItemId: 6_500_000_001, bundleId: "org.example.sample", name: "Notes",
                                                             developerName: "Example", access: .account, developerID: "acme"))
            #expect(created.developerID == "acme" && created.access == .account && created.availability == .available)
            #expect(try await catalog.hasApp(appleItemId: 6_500_000_001))
            await #expect(throws: CatalogError.self) {
                try await catalog.createApp(NewApp(appleItemId: 6_500_000_001, bundleId: "org.example.other", name: "Other"))
            }
            _ = try await store.importer.importPackage(at: try await store.makeSample())
            let versions = try await catalog.versions(of: created)
            let version = try #require(versions.first)
            #expect(version.appleVersionId == 9_000_000_001 && version.reviewState == .released && version.withdrawnAt == nil)
            #expect(try await catalog.versionRecord(appleItemId: 6_500_000_001, appleVersionId: 9_000_000_001) == version)
            #expect(try await catalog.allVersions(of: created) == versions)
            #expect(try await !catalog.files(of: version).isEmpty)

            let taken = try await catalog.setAvailability(appleItemId: 6_500_000_001, to: .takenDown, reason: "policy")
            #expect(taken.availability == .takenDown && taken.takedownReason == "policy")
            let read = try await catalog.appRecord(appleItemId: 6_500_000_001)
            #expect(read.availability == .takenDown && read.takedownReason == "policy" && read.developerID == "acme" && read.name == "Notes")
            #expect(try await catalog.appRecords().map(\.appleItemId) == [6_500_000_001])
            #expect(try await catalog.consoleApps(matching: "notes", limit: 10, offset: 0).map(\.availability) == [.takenDown])

            let first = try await catalog.marketplaceIdentity(defaultKeyId: "KEY1")
            #expect(first.appleItemId == 0 && first.installVerificationKeyId == "KEY1")
            let set = try await catalog.setMarketplace(name: "Bazaar", appleItemId: 6_446_000_000, defaultKeyId: "KEY1")
            #expect(set.name == "Bazaar" && set.appleItemId == 6_446_000_000)
            #expect(try await catalog.marketplaceIdentity(defaultKeyId: "OTHER") == set)
        }
    }
}
