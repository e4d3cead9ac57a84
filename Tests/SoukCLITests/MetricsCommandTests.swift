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

            // The exports: every metric of every day, in the documented lines; a file appears whole or not at all.
            let today = MetricDay(containing: Date()), first = today.adding(days: -3)
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let jsonl = folder.path + "/metrics.jsonl", csv = folder.path + "/metrics.csv"
            let range = ["--app", app, "--from", first.description, "--to", today.description]
            try await SoukCommand.run(["export", "metrics"] + range + ["--format", "jsonl", "--out", jsonl] + settings)
            let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 4 * MetricName.allCases.count)
            #expect(lines.first == #"{"date":"\#(first)","app":"org.metrics.cli","metric":"mrr","value":299,"currency":"USD"}"#)
            #expect(lines.contains(#"{"date":"\#(first)","app":"org.metrics.cli","metric":"revenue","value":299,"currency":"USD"}"#))
            try await SoukCommand.run(["export", "metrics"] + range + ["--format", "csv", "--out", csv] + settings)
            let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
            #expect(rows.first.map(String.init) == MetricsExportLines.csvHeader && rows.count == 1 + 4 * MetricName.allCases.count)
            // No rate for EUR: refused, naming it, and no file.
            let euro = folder.path + "/euro.jsonl"
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["export", "metrics"] + range + ["--format", "jsonl", "--currency", "EUR", "--out", euro] + settings)
            }
            #expect(!FileManager.default.fileExists(atPath: euro))
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["export", "metrics"] + range + ["--format", "xml"] + settings)
            }
            let cohorts = folder.path + "/cohorts.jsonl"
            try await SoukCommand.run(["export", "cohorts", "--app", app, "--from-month", first.month.description,
                                       "--to-month", today.month.description, "--format", "jsonl", "--out", cohorts] + settings)
            let cells = try String(contentsOfFile: cohorts, encoding: .utf8).split(separator: "\n")
            #expect(cells.first?.hasPrefix(#"{"cohort":"\#(first.month)","month":0,"accounts":1,"active":"#) == true, "\(cells)")
        }
    }
}
