import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCLI
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct MarketplaceKitConfigTests {
    @Test(arguments: TestBackend.available)
    func theConfigurationFileListsSoukEndpointsAndFullCopyOverrides(_ backend: TestBackend) async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(backend, prepare: { runtime, _ in
            try await runtime.catalog.createApp(AppModel(appleItemId: 6_497_405_838, bundleId: "org.example.own", name: "Own"))
            try await runtime.catalog.setOverride(AppOverride(restoreURL: "https://api.other.example/restore", pollingIntervalHours: 48),
                                                  appleItemId: 6_497_405_838)
            box.value = runtime
        }) { client in
            let response = try await client.execute(uri: "/.well-known/marketplace-kit", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.headers[.location] == nil)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(document["restore"] as? String == "https://souk.test/marketplace-kit/v1/restore")
            let updates = try #require(document["updates"] as? [String: Any])
            #expect(updates["pollingInterval"] as? Int == 24)
            let license = try #require(document["license"] as? [String: String])
            #expect(license["encryptionCertificateURL"] == "https://souk.test/marketplace-kit/certificates/encryption.cer")
            let override = try #require((document["overridesByAppleItemID"] as? [String: [String: Any]])?["6497405838"])
            #expect(override["restore"] as? String == "https://api.other.example/restore")
            #expect((override["updates"] as? [String: Any])?["pollingInterval"] as? Int == 48)
            #expect((override["updates"] as? [String: Any])?["url"] as? String == "https://souk.test/marketplace-kit/v1/updates")
            #expect((override["license"] as? [String: String]) == license)

            // The certificates it names are served as DER.
            for (path, der) in [("encryption.cer", box.value!.keys.licenseEncryptionCertificateDER),
                                ("signing.cer", box.value!.keys.licenseSigningCertificateDER)] {
                let certificate = try await client.execute(uri: "/marketplace-kit/certificates/\(path)", method: .get)
                #expect(certificate.headers[.contentType] == "application/pkix-cert")
                #expect(Array(Data(buffer: certificate.body)) == der)
            }
        }
    }

    @Test func theOverrideCommandValidatesAndClears() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let settings = ["--data-dir", folder.path + "/data"]
        func run(_ arguments: [String]) async throws {
            var command = try SoukCommand.parseAsRoot(arguments + settings)
            if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        }
        try await run(["apps", "create", "--apple-item-id", "42", "--bundle-id", "org.example.o", "--name", "O"])
        await #expect(throws: (any Error).self) { try await run(["apps", "override", "--apple-item-id", "42", "--polling-interval", "12"]) }
        await #expect(throws: (any Error).self) { try await run(["apps", "override", "--apple-item-id", "42", "--restore-url", "ftp://x"]) }
        try await run(["apps", "override", "--apple-item-id", "42", "--updates-url", "https://u.example/updates", "--polling-interval", "72"])
        let runtime = try await SoukRuntime.open(SoukConfig(dataDir: folder.path + "/data"), logger: testLogger())
        #expect(try await runtime.catalog.overrides()[42]?.pollingIntervalHours == 72)
        await runtime.close()
        try await run(["apps", "override", "--apple-item-id", "42", "--clear"])
        let reopened = try await SoukRuntime.open(SoukConfig(dataDir: folder.path + "/data"), logger: testLogger())
        #expect(try await reopened.catalog.overrides().isEmpty)
        // Set, then cleared: two entries, the second with the fields it removed.
        let entries = try await AuditLog(database: reopened.database).list(action: "app.override")
        #expect(entries.count == 2 && entries.allSatisfy { $0.target == "app:42" })
        #expect(entries.contains { $0.before?.contains(#""pollingInterval":"72""#) == true && $0.after == "{}" })
        await reopened.close()
    }
}
