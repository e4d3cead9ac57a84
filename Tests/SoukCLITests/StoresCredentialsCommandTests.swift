import Foundation
@testable import SoukCLI
import SQLKit
import SoukApp
import SoukCore
import SoukServe
import SoukStore
import SoukTestSupport
import Testing

/// `souk stores credentials set|list|remove`, run in-process as `souk` parses them, on both
/// databases: the secret is sealed (the table never holds it), replaced, removed, audited as
/// `cli:<user>`, and bad input is an error naming it.
@Suite struct StoresCredentialsCommandTests {
    static let app = "org.example.reader"
    static let secret = "ROKU-CLI-PARTNER-KEY-31337"

    @Test(arguments: TestBackend.available)
    func aCredentialIsSealedFromAFileListedReplacedAndRemoved(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let catalog = folder.path + "/catalog.json", key = folder.path + "/roku.key", bad = folder.path + "/AuthKey_BAD.p8"
            try Data(CommerceCatalogSamples.readerFile.replacingOccurrences(of: CommerceCatalogSamples.readerApp, with: Self.app).utf8)
                .write(to: URL(fileURLWithPath: catalog))
            try await SoukCommand.run(["catalog", "apply", catalog] + settings)
            try Self.secret.write(toFile: key, atomically: true, encoding: .utf8)
            try "not a key".write(toFile: bad, atomically: true, encoding: .utf8)
            let credentials = ["stores", "credentials"]

            try await SoukCommand.run(credentials + ["set", "--app", Self.app, "--store", "roku", "--kind", "partner-api-key", "--file", key] + settings)
            try await SoukCommand.run(credentials + ["list", "--app", Self.app] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(credentials + ["set", "--app", Self.app, "--store", "apple", "--kind", "server-api-key", "--file", bad] + settings)
            }
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(credentials + ["set", "--app", "org.nobody.app", "--store", "roku", "--kind", "partner-api-key", "--file", key] + settings)
            }
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(credentials + ["set", "--app", Self.app, "--store", "roku", "--kind", "service-account", "--file", key] + settings)
            }
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let rows = try await runtime.database.sql.raw("SELECT sealed, hint, set_by FROM store_credentials").all()
                #expect(rows.count == 1)
                #expect(try !rows[0].decode(column: "sealed", as: String.self).contains(Self.secret))
                #expect(try rows[0].decode(column: "hint", as: String.self) == "ends with 1337")
                #expect(try rows[0].decode(column: "set_by", as: String.self).hasPrefix("cli:"))
                let settings = try await SealedStoreSettings(database: runtime.database, keysDir: runtime.config.keysDir)
                    .apply(to: CommerceStoreSettings(), app: Self.app)
                #expect(try settings.roku?.partnerApiKey?.resolve() == Self.secret)
            }
            try await SoukCommand.run(credentials + ["remove", "--app", Self.app, "--store", "roku", "--kind", "partner-api-key"] + settings)
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(credentials + ["remove", "--app", Self.app, "--store", "roku", "--kind", "partner-api-key"] + settings)
            }
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let actions = try await AuditLog(database: runtime.database).list(target: "catalog:\(Self.app)").map(\.action)
                #expect(actions.filter { $0.hasPrefix("store.") }.sorted() == ["store.credential-remove", "store.credential-set"])
                #expect(try await runtime.database.sql.raw("SELECT app FROM store_credentials").all().isEmpty)
            }
        }
    }
}
