import Foundation
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The console's catalog reviews: kept by digest, taken once, by their reviewer only, until they lapse.
@Suite struct CatalogReviewStoreTests {
    @Test(arguments: TestBackend.available)
    func aReviewIsTakenOnceByItsReviewerBeforeItLapses(backend: TestBackend) async throws {
        try await StoreFixture.with(backend) { fixture in
            let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
            let reviews = CatalogReviewStore(database: fixture.database, now: { clock.now })
            let olive = try await fixture.catalog.createAccount(email: "olive@example.com", passwordHash: "x").requireID()
            let otto = try await fixture.catalog.createAccount(email: "otto@example.com", passwordHash: "x").requireID()
            let app = CommerceCatalogSamples.readerApp
            let digest = CatalogFile.reviewDigest(of: CommerceCatalogSamples.readerFile)

            let id = try await reviews.keep(app: app, accountID: olive, revision: 3, digest: digest)
            #expect(try await reviews.take(id, app: app, accountID: otto) == nil)  // another's
            #expect(try await reviews.take(id, app: "com.example.other", accountID: olive) == nil)
            let taken = try #require(try await reviews.take(id, app: app, accountID: olive))
            #expect(taken.revision == 3 && taken.digest == digest && taken.app == app && taken.accountID == olive)
            #expect(try await reviews.take(id, app: app, accountID: olive) == nil)  // once

            let lapsing = try await reviews.keep(app: app, accountID: olive, revision: 4, digest: digest)
            clock.advance(CatalogReviewStore.lifetime + 1)
            #expect(try await reviews.take(lapsing, app: app, accountID: olive) == nil)
        }
    }
}
