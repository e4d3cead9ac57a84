import Foundation
import SoukApp
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The marketplace's own settings (`MarketplaceOperations`) that `souk apps feature|price`,
/// `souk marketplace set`, `souk keys retire` and `souk content import` call, on both databases:
/// only the operator side changes them, a refusal changes nothing, and each change is audited once.
@Suite struct MarketplaceOperationsTests {
    typealias World = DeveloperAPIWorld
    static let refused = [AppAvailabilityOperationTests.support, AppAvailabilityOperationTests.acmeMember]

    @Test(arguments: TestBackend.available)
    func onlyTheOperatorSideChangesTheMarketplaceAndEachChangeIsAuditedOnce(backend: TestBackend) async throws {
        try await World.with(backend) { _, runtime, _ in
            let operations = MarketplaceOperations(runtime: runtime)
            let audit = AuditLog(database: runtime.database)
            let identity = try await runtime.catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId)
            let price = [Price(currency: "USD", amount: 299)]
            for actor in Self.refused {
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.setFeatured(actor: actor, appleItemId: World.acmeItem, order: 1)
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.setPricing(actor: actor, appleItemId: World.acmeItem, prices: price, requiresEntitlement: nil)
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.setIdentity(actor: actor, name: "Taken", appleItemId: nil, keyId: nil)
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.retireAppKey(actor: actor, appleItemId: World.acmeItem)
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.importContent(actor: actor, at: "/nonexistent", app: World.acmeApp)
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.setOverride(actor: actor, appleItemId: World.acmeItem, AppOverride(restoreURL: "https://evil.example/restore"))
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.setKeyBlob(actor: actor, appleItemId: World.acmeItem, appleVersionId: 1, assetPublicId: "v", keyBlob: "AAEC")
                }
                await #expect(throws: DeveloperOperationError.self) {
                    try await operations.revokeLicenses(actor: actor, .init(appleItemId: World.acmeItem), reason: "no")
                }
            }
            // An entitlement the marketplace's catalog does not have is refused by name, before any change.
            await #expect(throws: DeveloperOperationError.self) {
                try await operations.setPricing(actor: .cli(user: "ops"), appleItemId: World.acmeItem, prices: price,
                                                requiresEntitlement: .some("no.such.plan"))
            }
            let acme = try await runtime.catalog.appRecord(appleItemId: World.acmeItem)
            #expect(acme.featuredOrder == nil && acme.pricing.isFree)
            #expect(try await runtime.catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId).name == identity.name)
            #expect(try await runtime.catalog.appOverride(appleItemId: World.acmeItem) == AppOverride())
            #expect(try await audit.list(target: "app:\(World.acmeItem)").isEmpty)
            #expect(try await audit.list(target: "marketplace").isEmpty)

            try await operations.setFeatured(actor: AppAvailabilityOperationTests.operatorStaff, appleItemId: World.acmeItem, order: 2)
            try await operations.setFeatured(actor: .cli(user: "ops"), appleItemId: World.acmeItem, order: 2)  // unchanged: no entry
            let priced = try await operations.setPricing(actor: .cli(user: "ops"), appleItemId: World.acmeItem, prices: price,
                                                         requiresEntitlement: nil)
            #expect(!priced.pricing.isFree && priced.pricing.summary.contains("2.99"))
            let entries = try await audit.list(target: "app:\(World.acmeItem)")
            #expect(entries.map(\.action).sorted() == ["app.feature", "app.price"])
            #expect(entries.first { $0.action == "app.feature" }?.actor == "operator@souk.test")
            #expect(entries.first { $0.action == "app.price" }?.actor == "cli:ops")

            // A blank name and a malformed key id are refused before anything changes, the key id's
            // refusal included (it is the step that could refuse after a rename).
            await #expect(throws: DeveloperOperationError.invalid(field: "name", "A marketplace's name has 1–200 characters.")) {
                try await operations.setIdentity(actor: .cli(user: "ops"), name: "   ", appleItemId: nil, keyId: nil)
            }
            await #expect(throws: CatalogError.self) {
                try await operations.setIdentity(actor: .cli(user: "ops"), name: "Half", appleItemId: 6_599_999_998, keyId: "not a key id!")
            }
            let unchanged = try await runtime.catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId)
            #expect(unchanged.name == identity.name && unchanged.appleItemId == identity.appleItemId)
            #expect(try await audit.list(target: "marketplace").isEmpty)
            // Bad key blob input is refused by field, and nothing is recorded.
            await #expect(throws: DeveloperOperationError.invalid(field: "assetPublicId", "An assetPublicId has 1–200 characters.")) {
                try await operations.setKeyBlob(actor: .cli(user: "ops"), appleItemId: World.acmeItem, appleVersionId: 1, assetPublicId: "", keyBlob: "AAEC")
            }
            await #expect(throws: DeveloperOperationError.invalid(field: "keyBlob", "A key blob is base64.")) {
                try await operations.setKeyBlob(actor: .cli(user: "ops"), appleItemId: World.acmeItem, appleVersionId: 1, assetPublicId: "v", keyBlob: "not base64!")
            }
            #expect(try await LicenseStore(database: runtime.database).keyBlob(appleItemId: World.acmeItem, appleVersionId: 1, assetPublicId: "v") == nil)
            // An endpoint a device could not use is refused by its `.well-known` name, and nothing is saved.
            await #expect(throws: DeveloperOperationError.invalid(field: "restore", "must be an absolute https:// URL, got 'ftp://x.example/r'")) {
                try await operations.setOverride(actor: .cli(user: "ops"), appleItemId: World.acmeItem, AppOverride(restoreURL: "ftp://x.example/r"))
            }
            await #expect(throws: DeveloperOperationError.invalid(field: "pollingInterval",
                                                                  "is in hours and must be at least 24 (the OS polls at most daily)")) {
                try await operations.setOverride(actor: .cli(user: "ops"), appleItemId: World.acmeItem, AppOverride(pollingIntervalHours: 12))
            }
            #expect(try await runtime.catalog.overrides().isEmpty)

            let renamed = try await operations.setIdentity(actor: .cli(user: "ops"), name: "Renamed", appleItemId: 6_599_999_999, keyId: "MKTKEY0001")
            #expect(renamed.name == "Renamed" && renamed.appleItemId == 6_599_999_999)
            #expect(try await runtime.installVerificationKeys.store.activeKeys()[InstallVerificationKeyRecord.marketplaceOwner]?.kid == "MKTKEY0001")
            _ = try await operations.setIdentity(actor: .cli(user: "ops"), name: " Renamed ", appleItemId: nil, keyId: "MKTKEY0001")  // the same: no entry
            #expect(try await audit.list(target: "marketplace").map(\.action) == ["marketplace.set"])

            // An app's own key: retiring one it does not have is the store's refusal, audited never.
            await #expect(throws: CatalogError.self) {
                try await operations.retireAppKey(actor: .cli(user: "ops"), appleItemId: World.acmeItem)
            }
            _ = try await RotateInstallVerificationKey(runtime: runtime)(actor: .cli(user: "ops"), owner: World.acmeItem, kid: "WEBKEY0002")
            try await operations.retireAppKey(actor: .cli(user: "ops"), appleItemId: World.acmeItem)
            #expect(try await runtime.installVerificationKeys.store.activeKeys()[World.acmeItem] == nil)
            #expect(try await audit.list(target: "key:app:\(World.acmeItem)").map(\.action).sorted() == ["key.retire", "key.rotate"])
        }
    }
}
