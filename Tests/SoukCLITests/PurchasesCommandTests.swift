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

/// `souk purchases list|revoke|consume`, `souk entitlements show`, `souk accounts create --sandbox`.
@Suite struct PurchasesCommandTests {
    @Test(arguments: TestBackend.available)
    func operatorsListRevokeAndConsumePurchases(_ backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var settings = ["--data-dir", folder.path + "/data"]
        if case .postgres(let url) = location { settings += ["--database-url", url] }
        if backend == .postgres { try await SoukCommand.run(["migrate"] + settings) }
        try await SoukCommand.run(["accounts", "create", "--email", "buyer@example.com", "--password", "correct horse"] + settings)
        try await SoukCommand.run(["accounts", "create", "--email", "tester@example.com", "--password", "correct horse", "--sandbox"] + settings)

        let config = try await SoukConfig.load(flags: ["dataDir": folder.path + "/data", "databaseUrl": backend == .postgres ? settings[3] : nil]
            .compactMapValues { $0 }, environment: [:])
        let runtime = try await SoukRuntime.open(config, logger: testLogger())
        let payment: UUID
        do {
            _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.reader)
            let buyer = try await runtime.catalog.requireAccount(email: "buyer@example.com")
            #expect(buyer.sandbox == false)
            #expect(try await runtime.catalog.requireAccount(email: "tester@example.com").sandbox)
            let catalog = try #require(try await runtime.commerceCatalogs.state(app: CommerceCatalogSamples.readerApp))
            func record(_ productId: String, _ transaction: String, quantity: Int = 1) async throws -> UUID {
                struct NoSuchProduct: Error {}
                guard let product = catalog.product(productId) else { throw NoSuchProduct() }
                let sku = product.skus[.appleStore] ?? ""
                let claim = PurchaseClaim(store: .appleStore, app: catalog.app, storeProductId: sku, transactionId: transaction, receipt: "-")
                let verified = VerifiedPurchase(store: .appleStore, transactionId: transaction, originalTransactionId: transaction,
                                                storeProductId: sku, type: product.type, purchaseDate: Date().addingTimeInterval(-60),
                                                expiresDate: product.type == .autoRenewable ? Date().addingTimeInterval(86_400) : nil,
                                                quantity: quantity, environment: .production, app: catalog.app, signedDate: Date())
                let outcome = try await runtime.purchases.record(PurchaseIntake(account: try buyer.requireID(), product: product, claim: claim),
                                                                 verified: verified, environment: .production, policy: .transfer, catalog: catalog)
                return try #require(outcome.paymentId)
            }
            payment = try await record("reader.yearly", "2000000001")
            _ = try await record("reader.coins.100", "2000000002", quantity: 2)
            let listed = try await runtime.purchases.list(app: catalog.app)
            let table = PurchasesCommand.table(listed, emails: [try buyer.requireID(): buyer.email])
            let lines = table.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines[1].contains("2000000001") && lines[1].contains(payment.uuidString.lowercased()) && lines[1].contains("Production"))
            await runtime.close()
        } catch {
            await runtime.close()
            await drop()
            throw error
        }

        try await SoukCommand.run(["purchases", "list", "--account", "buyer@example.com"] + settings)
        try await SoukCommand.run(["purchases", "list", "--app", CommerceCatalogSamples.readerApp] + settings)
        try await SoukCommand.run(["entitlements", "show", "--account", "buyer@example.com", "--app", CommerceCatalogSamples.readerApp] + settings)
        try await SoukCommand.run(["purchases", "consume", "--account", "buyer@example.com", "--app", CommerceCatalogSamples.readerApp,
                                   "--product", "reader.coins.100", "--quantity", "2"] + settings)
        await #expect(throws: CommandFailure.self) {
            try await SoukCommand.run(["purchases", "consume", "--account", "buyer@example.com", "--app", CommerceCatalogSamples.readerApp,
                                       "--product", "reader.coins.100"] + settings)
        }
        try await SoukCommand.run(["purchases", "revoke", "--id", payment.uuidString] + settings)
        await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["purchases", "revoke", "--id", UUID().uuidString] + settings) }
        await #expect(throws: (any Error).self) { try await SoukCommand.run(["purchases", "list"] + settings) }

        let (stored, balances, revocations) = try await SoukRuntime.open(config, logger: testLogger()).closing { after in
            let stored = try await after.purchases.payment(payment)
            return (stored, try await after.purchases.balances(account: try #require(stored?.accountId), app: CommerceCatalogSamples.readerApp),
                    try await AuditLog(database: after.database).list(action: "purchase.revoke"))
        }
        await drop()
        // The revocation is audited once on the buyer's account, with the payment it ended.
        #expect(revocations.count == 1 && revocations.first?.target == "account:" + (stored?.accountId.uuidString.lowercased() ?? "-"))
        #expect(revocations.first?.after?.contains(payment.uuidString.lowercased()) == true && revocations.first?.actor.hasPrefix("cli:") == true)
        #expect(stored?.revokedAt != nil)
        #expect(balances.map(\.balance) == [0])
    }
}
