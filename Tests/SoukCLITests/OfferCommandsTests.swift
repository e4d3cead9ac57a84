import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukTestSupport
import Testing

/// The operator's side of promotional offers: the offer key set by reference with `souk stores set`,
/// and `souk apple sign-offer`'s arguments (its signatures are checked against Apple's library by
/// Tests/apple-verdicts/test_promotional_offers.py).
@Suite struct OfferCommandsTests {
    static let app = CommerceCatalogSamples.readerApp

    @Test(arguments: TestBackend.available)
    func storesSetTakesTheOfferKeyByReference(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let file = folder.path + "/catalog.json"
            try CommerceCatalogSamples.readerFile.write(toFile: file, atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", file] + settings)
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "apple_store", "--issuer-id", "issuer",
                                       "--offer-key-id", "OFFER12345", "--offer-private-key-env", "READER_OFFER_KEY"] + settings)
            // A path replaces the variable.
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "apple_store",
                                       "--offer-private-key-path", folder.path + "/offer.p8"] + settings)
            let stores = try await WebhooksCommandTests.withRuntime(config) { runtime in
                try #require(try await runtime.commerceCatalogs.store.state(app: Self.app)?.catalog.stores)
            }
            #expect(stores.apple == AppleStoreSettings(issuerId: "issuer", offerKeyId: "OFFER12345", offerPrivateKey: .path(folder.path + "/offer.p8")))
            let shown = StoresStatusCommand.render(app: Self.app, stores: stores, statuses: [])
            #expect(shown.contains("offer key OFFER12345") && shown.contains("offerPrivateKey=file \(folder.path)/offer.p8"))
            try await SoukCommand.run(["stores", "set", "--app", Self.app, "--store", "apple_store", "--unset", "offer-key-id"] + settings)
            let unset = try await WebhooksCommandTests.withRuntime(config) { runtime in
                try await runtime.commerceCatalogs.store.state(app: Self.app)?.catalog.stores?.apple
            }
            #expect(unset?.offerKeyId == nil && unset?.offerPrivateKey == .path(folder.path + "/offer.p8"))
        }
    }

    @Test func signOfferRefusesABadNonceAndAKeyItCannotUse() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let base = ["apple", "sign-offer", "--bundle-id", Self.app, "--key-id", "OFFER12345", "--issuer-id", "issuer",
                    "--product-id", "com.example.reader.monthly", "--offer-id", "winback50"]
        #expect(throws: (any Error).self) {
            try AppleCommand.SignOffer.parse(Array(base.dropFirst(2)) + ["--key-path", "/k.p8", "--nonce", "not-a-uuid"])
        }
        await #expect(throws: (any Error).self) { try await SoukCommand.run(base + ["--key-path", folder.path + "/missing.p8"]) }
        try "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n".write(toFile: folder.path + "/bad.p8", atomically: true, encoding: .utf8)
        await #expect(throws: (any Error).self) { try await SoukCommand.run(base + ["--key-path", folder.path + "/bad.p8"]) }
    }
}
