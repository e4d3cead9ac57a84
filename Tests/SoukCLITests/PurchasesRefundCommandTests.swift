import ArgumentParser
import Foundation
import SoukApp
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk purchases refund`: a Google Play purchase refunded at the fake Play, on both databases.
@Suite struct PurchasesRefundCommandTests {
    static let app = CommerceCatalogSamples.readerApp

    @Test(arguments: TestBackend.available)
    func refundAsksGoogleOnceAndAnOutageOrAWrongRequestRefundsNothing(_ backend: TestBackend) async throws {
        let fake = try FakeGooglePlay(packageName: Self.app)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let keyPath = try fake.writeServiceAccount(into: folder.path + "/google")
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
            let configPath = folder.path + "/souk.json"
            let file: [String: String] = ["googlePlayBaseUrl": base, "googleOauthTokenUrl": base + "/token",
                                          "storeRetryBaseMs": "1", "storeRetryMaxMs": "5"]
            try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: configPath))
            var settings = ["--data-dir", folder.path + "/data", "--config", configPath]
            var flags = ["dataDir": folder.path + "/data"]
            if case .postgres(let url) = location {
                settings += ["--database-url", url]
                flags["databaseUrl"] = url
            }
            do {
                if backend == .postgres { try await SoukCommand.run(["migrate"] + settings) }
                try await SoukCommand.run(["accounts", "create", "--email", "buyer@example.com", "--password", "correct horse"] + settings)
                let config = try await SoukConfig.load(flags: flags, environment: [:], configFile: configPath)
                fake.addProduct(token: "cli-token", FakeGoogleProduct(productId: "book_1", orderId: "GPA.CLI", purchaseTime: Date().addingTimeInterval(-60)))
                let runtime = try await SoukRuntime.open(config, logger: testLogger())
                let payment: UUID
                do {
                    var catalog = CommerceCatalogSamples.reader
                    catalog.stores = CommerceStoreSettings(googlePlay: GooglePlaySettings(packageName: Self.app, serviceAccount: .path(keyPath)))
                    _ = try await runtime.commerceCatalogs.apply(catalog)
                    let state = try #require(try await runtime.commerceCatalogs.state(app: Self.app))
                    let product = try #require(state.product("reader.book.1"))
                    let buyer = try await runtime.catalog.requireAccount(email: "buyer@example.com")
                    let claim = PurchaseClaim(store: .googlePlay, app: Self.app, storeProductId: "book_1", transactionId: "GPA.CLI", receipt: "cli-token")
                    let verified = VerifiedPurchase(store: .googlePlay, transactionId: "GPA.CLI", originalTransactionId: "GPA.CLI", storeProductId: "book_1",
                                                    type: .nonConsumable, purchaseDate: Date().addingTimeInterval(-60), environment: .production,
                                                    app: Self.app, signedDate: Date(), storeReference: "cli-token", acknowledged: true)
                    let outcome = try await runtime.purchases.record(PurchaseIntake(account: try buyer.requireID(), product: product, claim: claim),
                                                                     verified: verified, environment: .production, policy: .transfer, catalog: state)
                    payment = try #require(outcome.paymentId)
                    await runtime.close()
                } catch {
                    await runtime.close()
                    throw error
                }
                let id = payment.uuidString.lowercased()
                // A one-time product has no unused time to refund.
                await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["purchases", "refund", "--id", id, "--prorated"] + settings) }
                // Google down: the command fails and nothing is refunded.
                faults.down(status: 503)
                await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["purchases", "refund", "--id", id] + settings) }
                faults.recover()
                #expect(fake.product(token: "cli-token")?.purchaseState == 0)
                try await SoukCommand.run(["purchases", "refund", "--id", id] + settings)
                #expect(fake.product(token: "cli-token")?.purchaseState == 1)
                #expect(faults.requests(matching: "/orders/GPA.CLI:refund").allSatisfy { $0.query == "revoke=true" })
                // Refunded already: refused before Google is asked again.
                let asked = faults.requests(matching: ":refund").count
                await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["purchases", "refund", "--id", id] + settings) }
                #expect(faults.requests(matching: ":refund").count == asked)

                let (stored, audit) = try await SoukRuntime.open(config, logger: testLogger()).closing { after in
                    (try await after.purchases.payment(payment), try await AuditLog(database: after.database).list(action: "purchase.refund", limit: 5))
                }
                #expect(stored?.revokedAt != nil && stored?.revocationReason == "refunded")
                #expect(audit.count == 1 && audit.first?.actor.hasPrefix("cli:") == true && audit.first?.after?.contains("orders.refund") == true)
                await drop()
            } catch {
                await drop()
                throw error
            }
        }
    }
}
