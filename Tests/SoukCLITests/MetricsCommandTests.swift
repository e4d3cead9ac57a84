import Foundation
@testable import SoukCLI
import SoukApp
import SoukCore
import SoukServe
import SoukStore
import SoukTestSupport
import Testing

/// `souk metrics rebuild`, on both databases: it fills the rollup and returns when done, the same
/// rows each time; a bad `--from` is refused; a pass another process holds is waited for.
@Suite struct MetricsCommandTests {
    @Test(arguments: TestBackend.available)
    func rebuildFillsTheRollupAndReturnsWhenDone(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let app = "org.metrics.cli"
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let account = try await runtime.catalog.createAccount(email: "m@example.com", passwordHash: "-").requireID()
                _ = try await runtime.commerceCatalogs.apply(try CatalogFile.parse(
                    CommerceCatalogSamples.readerFile.replacingOccurrences(of: CommerceCatalogSamples.readerApp, with: app)))
                let state = try #require(try await runtime.commerceCatalogs.state(app: app))
                let product = try #require(state.product("reader.monthly"))
                let bought = MetricDay(containing: Date()).adding(days: -3).start
                var verified = VerifiedPurchase(store: .appleStore, transactionId: "m-1", originalTransactionId: "m-1",
                                                storeProductId: product.skus[.appleStore] ?? "", type: product.type, purchaseDate: bought,
                                                expiresDate: bought.addingTimeInterval(30 * 86_400), environment: .production, app: app,
                                                signedDate: bought)
                verified.price = 2990
                verified.currency = "USD"
                let claim = PurchaseClaim(store: .appleStore, app: app, storeProductId: product.skus[.appleStore] ?? "", transactionId: "m-1",
                                          receipt: "jws")
                _ = try await runtime.purchases.record(PurchaseIntake(account: account, product: product, claim: claim), verified: verified,
                                                       environment: .production, policy: .transfer, catalog: state)
            }
            try await SoukCommand.run(["metrics", "rebuild", "--app", app] + settings)
            func stored() async throws -> [MetricRollupRow] {
                try await WebhooksCommandTests.withRuntime(config) { runtime in
                    let today = MetricDay(containing: Date())
                    return try await MetricRollupStore(database: runtime.database)
                        .rows(app: app, sandbox: false, from: today.adding(days: -10), to: today)
                }
            }
            let once = try await stored()
            let mrr = once.filter { $0.metric == .mrr }
            #expect(mrr.count == 4 && mrr.allSatisfy { $0.value == 299 && $0.currency == "USD" })
            try await SoukCommand.run(["metrics", "rebuild"] + settings)
            try await SoukCommand.run(["metrics", "rebuild", "--app", app, "--from", MetricDay(containing: Date()).adding(days: -1).description]
                                      + settings)
            #expect(try await stored() == once)
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["metrics", "rebuild", "--from", "2026-02-30"] + settings) }
        }
    }
}
