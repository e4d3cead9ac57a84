import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// A catalog applied for a developer organisation is theirs in the same transaction as its
/// products: made and owned together, or, when the ownership cannot be written, nothing at all.
@Suite struct CommerceCatalogOwnerTests {
    @Test(arguments: TestBackend.available)
    func applyingForAnOrganisationWritesTheCatalogAndItsOwnerTogether(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            let directory = DeveloperDirectory(database: fixture.database)
            _ = try await directory.create(name: "Acme", id: "acme")
            let app = CommerceCatalogSamples.readerApp

            // A dry run writes neither.
            let dry = try await store.apply(CommerceCatalogSamples.reader, dryRun: true, owner: "acme")
            #expect(!dry.applied && !dry.claimed)
            #expect(try await store.state(app: app) == nil)
            #expect(try await directory.owner(catalog: app) == nil)

            let made = try await store.apply(CommerceCatalogSamples.reader, owner: "acme")
            #expect(made.applied && made.claimed && made.revision == 1)
            #expect(try await directory.owner(catalog: app) == "acme")

            // Theirs already: a change is applied, nothing is claimed again.
            var changed = CommerceCatalogSamples.reader
            changed.products[0].prices[0].amount = 599
            let again = try await store.apply(changed, owner: "acme")
            #expect(again.applied && !again.claimed && again.revision == 2)
            #expect(try await directory.owner(catalog: app) == "acme")
        }
    }

    @Test(arguments: TestBackend.available)
    func aCatalogAnotherOrganisationOwnsIsLeftAsItWasWhenTheOwnershipFails(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let store = CommerceCatalogStore(database: fixture.database)
            let directory = DeveloperDirectory(database: fixture.database)
            _ = try await directory.create(name: "Acme", id: "acme")
            _ = try await directory.create(name: "Rival", id: "rival")
            let app = CommerceCatalogSamples.readerApp
            _ = try await store.apply(CommerceCatalogSamples.reader)
            #expect(try await directory.setCatalogDeveloper(app: app, developer: "rival"))
            let before = try #require(try await store.state(app: app))

            // The products are written first, then the ownership fails: the transaction takes both back.
            var changed = CommerceCatalogSamples.reader
            changed.products[0].prices[0].amount = 599
            changed.products.removeLast()
            await #expect(throws: CatalogOwnedByAnother(app: app)) {
                try await store.apply(changed, owner: "acme")
            }
            #expect(try await store.state(app: app) == before)
            #expect(try await store.revision(app: app) == 1)
            #expect(try await directory.owner(catalog: app) == "rival")
        }
    }
}
