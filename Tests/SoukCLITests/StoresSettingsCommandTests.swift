import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk stores set` and `souk stores status`, run in-process on both databases: settings land in
/// the catalog (a catalog file without `stores` keeps them), references are shown and secrets never.
@Suite struct StoresSettingsCommandTests {
    static let app = CommerceCatalogSamples.readerApp

    @Test(arguments: TestBackend.available)
    func settingsAreSetKeptAndShownByReference(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let file = folder.path + "/catalog.json"
            try CommerceCatalogSamples.readerFile.write(toFile: file, atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", file] + settings)

            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "amazon", "--shared-secret-env", "READER_AMAZON",
                                       "--sandbox", "true"] + settings)
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "apple_store", "--bundle-id", Self.app,
                                       "--app-apple-id", "1234567890", "--key-id", "ABC123DEFG", "--issuer-id", "issuer",
                                       "--private-key-path", folder.path + "/key.p8"] + settings)
            // A path replaces the env of the same secret; --unset drops a key.
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "amazon", "--shared-secret-path",
                                       folder.path + "/amazon.secret"] + settings)
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "apple_store", "--unset", "issuer-id"] + settings)
            // Re-applying the file (it has no stores) keeps them.
            try await SoukCommand.run(["catalog", "apply", file] + settings)

            let stores = try await WebhooksCommandTests.withRuntime(config) { runtime in
                let status = StoreStatusStore(database: runtime.database)
                try await status.recordFault(app: Self.app, store: .amazon, StoreFault(.credentials, "Amazon refused the shared secret (496)."),
                                             at: Date(timeIntervalSince1970: 1_800_000_000))
                try await status.recordAnswer(app: Self.app, store: .appleStore, at: Date(timeIntervalSince1970: 1_800_000_100))
                let statuses = try await status.list(app: Self.app)
                #expect(statuses.first { $0.store == .amazon }?.isFailing == true)
                #expect(statuses.first { $0.store == .appleStore }?.isFailing == false)
                let stores = try #require(try await runtime.commerceCatalogs.store.state(app: Self.app)?.catalog.stores)
                let shown = StoresStatusCommand.render(app: Self.app, stores: stores, statuses: statuses)
                #expect(shown.contains("failing") && shown.contains("credentials: Amazon refused the shared secret (496)."))
                #expect(shown.contains("sharedSecret=file \(folder.path)/amazon.secret sandbox=true"))
                return stores
            }
            #expect(stores.amazon == AmazonSettings(sharedSecret: .path(folder.path + "/amazon.secret"), sandbox: true))
            #expect(stores.apple == AppleStoreSettings(bundleId: Self.app, appAppleId: 1_234_567_890, keyId: "ABC123DEFG", issuerId: nil,
                                                       privateKey: .path(folder.path + "/key.p8")))
            try await SoukCommand.run(["stores", "status"] + settings)
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "amazon", "--remove"] + settings)
            let removed = try await WebhooksCommandTests.withRuntime(config) { runtime in
                try await runtime.commerceCatalogs.store.state(app: Self.app)?.catalog.stores
            }
            #expect(removed?.amazon == nil && removed?.apple != nil)

            for wrong in [["--store", "nokia", "--sandbox", "true"], ["--store", "roku", "--bundle-id", "x"], ["--store", "roku"],
                          ["--store", "apple_store", "--app-apple-id", "twelve"], ["--store", "roku", "--remove", "--partner-api-key-env", "K"]] {
                #expect(throws: (any Error).self) { try StoresSetCommand.parse(["--app", Self.app] + wrong + settings) }
            }
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["stores", "set", "--app", "org.example.none", "--store", "roku", "--partner-api-key-env", "K"] + settings)
            }
        }
    }
}
