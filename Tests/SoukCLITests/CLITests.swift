import ArgumentParser
import Foundation
import SoukApp
import SoukCLI
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// Runs operator commands in-process, exactly as `souk …` parses them.
@Suite struct CLITests {
    func run(_ arguments: [String]) async throws {
        try await SoukCommand.run(arguments)
    }

    /// The common settings for a backend: a data folder, and a fresh PostgreSQL database when asked.
    func settings(_ backend: TestBackend, _ folder: TemporaryFolder) async throws -> ([String], @Sendable () async -> Void) {
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var arguments = ["--data-dir", folder.path + "/data"]
        if case .postgres(let url) = location { arguments += ["--database-url", url] }
        return (arguments, drop)
    }

    @Test(arguments: TestBackend.available)
    func operatorFlowFromEmptyStoreToHostedPackage(_ backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        let (settings, drop) = try await settings(backend, folder)
        defer { folder.remove() }
        if backend == .postgres { try await run(["migrate"] + settings) }
        try await run(["apps", "create", "--apple-item-id", "6500000010", "--bundle-id", "org.example.cli", "--name", "CLI App",
                       "--access", "account"] + settings)
        try await run(["packages", "make-sample", "--apple-item-id", "6500000010", "--apple-version-id", "9000000010",
                       "--bundle-id", "org.example.cli", "--short-version", "1.2", "--bundle-version", "12", "--min-os", "17.0",
                       "--variant-size", "20000", "--out", folder.path + "/pkg"])
        try await run(["packages", "import", folder.path + "/pkg"] + settings)
        try await run(["packages", "import", folder.path + "/pkg"] + settings)  // harmless the second time
        try await run(["packages", "withdraw", "--apple-item-id", "6500000010", "--apple-version-id", "9000000010",
                       "--reason", "crashes"] + settings)
        await #expect(throws: (any Error).self) {
            try await run(["packages", "withdraw", "--apple-item-id", "6500000010", "--apple-version-id", "1"] + settings)
        }
        try await run(["packages", "reinstate", "--apple-item-id", "6500000010", "--apple-version-id", "9000000010"] + settings)
        try await run(["apps", "remove", "--apple-item-id", "6500000010"] + settings)
        try await run(["apps", "reinstate", "--apple-item-id", "6500000010"] + settings)
        try await run(["apps", "takedown", "--apple-item-id", "6500000010", "--reason", "test"] + settings)
        try await run(["apps", "show", "--apple-item-id", "6500000010"] + settings)
        try await run(["accounts", "create", "--email", "Op@Example.com", "--password", "correct horse"] + settings)
        try await run(["keys", "show"] + settings)
        try await run(["accounts", "reset-password", "--email", "op@example.com", "--password", "another horse"] + settings)
        try await run(["accounts", "disable", "--email", "OP@example.com"] + settings)
        await #expect(throws: (any Error).self) { try await run(["accounts", "disable", "--email", "nobody@example.com"] + settings) }

        let runtime = try await SoukRuntime.open(
            try await SoukConfig.load(flags: ["dataDir": folder.path + "/data", "databaseUrl": settings.count > 2 ? settings[3] : nil]
                .compactMapValues { $0 }, environment: [:]),
            logger: testLogger())
        let app = try await runtime.catalog.app(appleItemId: 6_500_000_010)
        #expect(app.availability == .takenDown)
        #expect(app.access == .account)
        #expect(try await runtime.catalog.versions(of: app).map(\.shortVersionString) == ["1.2"])
        #expect(try await runtime.catalog.accounts().map(\.email) == ["op@example.com"])
        let account = try await runtime.catalog.requireAccount(email: "op@example.com")
        #expect(account.disabled)
        #expect(PasswordHashing.verify("another horse", hash: account.passwordHash))
        await runtime.close()
        await drop()
    }

    @Test func aRejectedPackageFailsTheCommandNamingTheField() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let settings = ["--data-dir", folder.path + "/data"]
        try await run(["packages", "make-sample", "--apple-item-id", "6500000011", "--apple-version-id", "9000000011",
                       "--bundle-id", "org.example.cli", "--short-version", "1.0", "--bundle-version", "1", "--min-os", "17.0",
                       "--variant-size", "1000", "--out", folder.path + "/pkg"])
        let error = await #expect(throws: (any Error).self) { try await run(["packages", "import", folder.path + "/pkg"] + settings) }
        #expect("\(error!)".contains("appleItemId"))
    }

    @Test func badOptionsAreValidationErrors() async throws {
        #expect(throws: (any Error).self) {
            _ = try SoukCommand.parseAsRoot(["apps", "create", "--access", "everyone", "--apple-item-id", "1", "--bundle-id", "b", "--name", "n"])
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        await #expect(throws: (any Error).self) {
            try await run(["apps", "create", "--apple-item-id", "12x", "--bundle-id", "b", "--name", "n", "--data-dir", folder.path])
        }
        await #expect(throws: (any Error).self) {
            try await run(["accounts", "create", "--email", "a@b.co", "--password", "short", "--data-dir", folder.path])
        }
    }

    @Test func demoSeedFillsAnEmptyCatalogOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let settings = ["--data-dir", folder.path + "/data"]
        try await run(["demo", "seed"] + settings)
        try await run(["demo", "seed"] + settings)
        try await run(["links", "install", "--apple-item-id", "6446000003", "--account", "demo@souk.example"] + settings)
        await #expect(throws: (any Error).self) {
            try await run(["links", "install", "--apple-item-id", "6446000003", "--account", "nobody@souk.example"] + settings)
        }
        let runtime = try await SoukRuntime.open(SoukConfig(dataDir: folder.path + "/data"), logger: testLogger())
        let apps = try await runtime.catalog.apps()
        #expect(apps.count == 4)
        #expect(Set(apps.map(\.access)) == [.public, .account])
        #expect(apps.filter { !$0.pricing.isFree }.map(\.bundleId) == ["org.souk.demo.sketch"])
        for app in apps { #expect(try await runtime.catalog.versions(of: app).count == 2) }
        // The demo account and the demo's console operator.
        let accounts = try await runtime.catalog.accounts()
        #expect(accounts.map(\.email).sorted() == ["demo@souk.example", "operator@souk.example"])
        #expect(accounts.first { $0.email == "operator@souk.example" }?.role == .operator)
        #expect(try await runtime.catalog.marketplace(defaultKeyId: "x").appleItemId != 0)
        await runtime.close()
    }

    @Test func anUnmigratedPostgresDatabaseStopsStartUp() async throws {
        guard TestBackend.postgresURL != nil else { return }  // covered in CI, where PostgreSQL is required
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await TestBackend.postgres.makeLocation(dataDir: folder.path)
        let config = SoukConfig(dataDir: folder.path + "/data", database: location)
        let error = await #expect(throws: StartupError.self) { try await SoukRuntime.open(config, logger: testLogger()) }
        #expect(error?.description.contains("souk migrate") == true)
        let migrated = try await SoukRuntime.open(config, logger: testLogger(), migrate: true)
        await migrated.close()
        let reopened = try await SoukRuntime.open(config, logger: testLogger())
        await reopened.close()
        await drop()
    }
}
