import Foundation
@testable import SoukCLI
import SoukApp
import SoukCore
import SoukServe
import SoukStore
import SoukTestSupport
import Testing

/// `souk export cohorts` reads the rollup's cohort table (docs/metrics.md, "Cohorts in the
/// rollup"), never the purchases, on both databases: an app the rollup has not computed has no
/// lines; once computed, its cells.
@Suite struct CohortExportCommandTests {
    @Test(arguments: TestBackend.available)
    func theCohortExportReadsTheRollup(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let app = "org.cohorts.cli"
            let bought = MetricDay(containing: Date()).adding(days: -3)
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let account = try await runtime.catalog.createAccount(email: "c@example.com", passwordHash: "-").requireID()
                _ = try await runtime.commerceCatalogs.apply(try CatalogFile.parse(
                    CommerceCatalogSamples.readerFile.replacingOccurrences(of: CommerceCatalogSamples.readerApp, with: app)))
                let state = try #require(try await runtime.commerceCatalogs.state(app: app))
                let product = try #require(state.product("reader.monthly"))
                var verified = VerifiedPurchase(store: .appleStore, transactionId: "c-1", originalTransactionId: "c-1",
                                                storeProductId: product.skus[.appleStore] ?? "", type: product.type, purchaseDate: bought.start,
                                                expiresDate: bought.start.addingTimeInterval(40 * 86_400), environment: .production, app: app,
                                                signedDate: bought.start)
                verified.price = 2990
                verified.currency = "USD"
                let claim = PurchaseClaim(store: .appleStore, app: app, storeProductId: product.skus[.appleStore] ?? "", transactionId: "c-1",
                                          receipt: "jws")
                _ = try await runtime.purchases.record(PurchaseIntake(account: account, product: product, claim: claim), verified: verified,
                                                       environment: .production, policy: .transfer, catalog: state)
            }
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let out = folder.path + "/cohorts.jsonl"
            let export = ["export", "cohorts", "--app", app, "--from-month", bought.month.description, "--to-month", bought.month.description,
                          "--format", "jsonl", "--out", out] + settings
            try await SoukCommand.run(export)
            #expect(try String(contentsOfFile: out, encoding: .utf8).isEmpty)
            try await SoukCommand.run(["metrics", "rebuild", "--app", app] + settings)
            try await SoukCommand.run(export)
            #expect(try String(contentsOfFile: out, encoding: .utf8)
                    == #"{"cohort":"\#(bought.month)","month":0,"accounts":1,"active":1,"share":1.0}"# + "\n")
        }
    }
}
