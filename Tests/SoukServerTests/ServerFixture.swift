import Foundation
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport

/// A Souk built by the real `buildApplication`, on a fresh data folder and database.
struct ServerFixture {
    /// `with`, for tests that also need the runtime (to change the catalog mid-test).
    static func withRuntime(
        _ backend: TestBackend,
        now: @escaping @Sendable () -> Date = { Date() },
        configure: (inout SoukConfig) -> Void = { _ in },
        prepare: @escaping (SoukRuntime, StorePaths) async throws -> Void = AppDataTests.prepare,
        _ test: @escaping @Sendable (any TestClientProtocol, SoukRuntime) async throws -> Void
    ) async throws {
        let box = Box<SoukRuntime>()
        try await with(backend, now: now, configure: configure, prepare: { runtime, paths in
            try await prepare(runtime, paths)
            box.value = runtime
        }) { client in
            try await test(client, box.value!)
        }
    }

    /// Opens a runtime on `backend`, lets `prepare` fill it, then runs `test` against the application
    /// (`mode` `.live` for a real socket; `now` is the sign-in throttle's clock).
    static func with(
        _ backend: TestBackend,
        _ mode: TestingSetup = .router,
        now: @escaping @Sendable () -> Date = { Date() },
        configure: (inout SoukConfig) -> Void = { _ in },
        prepare: (SoukRuntime, StorePaths) async throws -> Void = { _, _ in },
        storeVerifiers: StoreVerifiers? = nil,
        _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var config = SoukConfig(dataDir: folder.path + "/data", port: 0, publicURL: "https://souk.test", database: location)
        // Tests change the catalog and ask at once: every request checks the change log first.
        config.catalogRefreshMilliseconds = 0
        // Console tests sign staff in with a password only; the two-factor requirement's own tests
        // (ConsoleTwoFactorTests) turn it back on.
        config.consoleRequiresTwoFactor = false
        // Many servers share two cores in a test run: a connection can be minutes away without
        // anything being wrong (docs/development.md, "Test layout").
        config.databasePoolWaitSeconds = 120
        configure(&config)
        let runtime = try await SoukRuntime.open(config, logger: testLogger(), migrate: true)
        do {
            try await prepare(runtime, StorePaths(folder: folder.path))
            // The application's services stop when the test ends; the database closes after them.
            try await buildApplication(runtime, now: now, storeVerifiers: storeVerifiers).test(mode, test)
        } catch {
            await runtime.close()
            await drop()
            folder.remove()
            throw error
        }
        await runtime.close()
        await drop()
        folder.remove()
    }

    /// Where a test may write its own files.
    struct StorePaths {
        let folder: String
    }
}

extension SoukRuntime {
    /// Creates an app and imports a sample package for it; returns the manifest.
    @discardableResult
    func importSample(appleItemId: UInt64 = 6_500_000_001, appleVersionId: UInt64 = 9_000_000_001,
                      bundleId: String = "org.example.sample", variantSize: Int = 100_000,
                      minimumOS: String = "17.0", releaseDate: Date? = nil, access: AccessPolicy = .public,
                      in folder: String) async throws -> PackageManifest {
        if try await AppModel.find(appleItemId: appleItemId, on: database.db) == nil {
            try await catalog.createApp(AppModel(appleItemId: appleItemId, bundleId: bundleId, name: "Sample", access: access))
        }
        let out = "\(folder)/sample-\(appleVersionId)"
        let manifest = try SamplePackageMaker(appleItemId: appleItemId, appleVersionId: appleVersionId, bundleId: bundleId,
                                              shortVersion: "1.\(appleVersionId % 100)", bundleVersion: "\(appleVersionId % 100)",
                                              minimumOS: OSVersion(minimumOS)!,
                                              variantSize: variantSize, chunkSize: 16_384).write(to: out)
        _ = try await importer.importPackage(at: out, releaseDate: releaseDate)
        return manifest
    }
}
