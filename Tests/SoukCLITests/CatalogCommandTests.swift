import Foundation
import SoukApp
import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk catalog …` run in-process, as `souk` parses it.
@Suite struct CatalogCommandTests {
    /// A data folder (and a fresh PostgreSQL database when asked), migrated; `body` gets the settings arguments.
    func withSettings(_ backend: TestBackend, _ body: ([String], TemporaryFolder) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var settings = ["--data-dir", folder.path + "/data"]
        if case .postgres(let url) = location { settings += ["--database-url", url] }
        do {
            try await SoukCommand.run(["migrate"] + settings)
            try await body(settings, folder)
        } catch {
            await drop()
            folder.remove()
            throw error
        }
        await drop()
        folder.remove()
    }

    func state(_ settings: [String], app: String = CommerceCatalogSamples.readerApp) async throws -> CommerceCatalogState? {
        var flags = ["dataDir": settings[1]]
        if settings.count > 3 { flags["databaseUrl"] = settings[3] }
        return try await SoukRuntime.open(try await SoukConfig.load(flags: flags, environment: [:]), logger: testLogger()).closing { runtime in
            try await runtime.commerceCatalogs.store.state(app: app)
        }
    }

    @Test(arguments: TestBackend.available)
    func applyTwiceDryRunAndABadFileThatAppliesNothing(_ backend: TestBackend) async throws {
        try await withSettings(backend) { settings, folder in
            let file = folder.path + "/reader.json"
            try Data(CommerceCatalogSamples.readerFile.utf8).write(to: URL(fileURLWithPath: file))
            try await SoukCommand.run(["catalog", "apply", file, "--dry-run"] + settings)
            #expect(try await state(settings) == nil)
            try await SoukCommand.run(["catalog", "apply", file] + settings)
            try await SoukCommand.run(["catalog", "apply", file] + settings)
            #expect(try await state(settings)?.revision == 1)

            let broken = folder.path + "/broken.json"
            try Data(CommerceCatalogSamples.readerFile.replacingOccurrences(of: "\"P1Y\"", with: "\"P4M\"").utf8)
                .write(to: URL(fileURLWithPath: broken))
            let error = await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["catalog", "apply", broken] + settings) }
            #expect(error?.description.contains("products[1].period") == true)
            #expect(error?.description.contains("nothing applied") == true)

            // Leaving a product out retires it; putting it back is refused with its path.
            let smaller = folder.path + "/smaller.json"
            var catalog = CommerceCatalogSamples.reader
            catalog.products.remove(at: 2)
            try Data(CatalogFile.encode(catalog).utf8).write(to: URL(fileURLWithPath: smaller))
            try await SoukCommand.run(["catalog", "apply", smaller] + settings)
            let reused = await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["catalog", "apply", file] + settings) }
            #expect(reused?.description.contains("products[2].id") == true)
            let after = try #require(try await state(settings))
            #expect(after.revision == 2)
            #expect(after.retired.map(\.id) == ["reader.coins.100"])
            try await SoukCommand.run(["catalog", "show", CommerceCatalogSamples.readerApp] + settings)
            try await SoukCommand.run(["catalog", "list"] + settings)
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["catalog", "show", "com.example.none"] + settings) }
        }
    }

    @Test(arguments: TestBackend.available)
    func importStoreKitAppliesXcodesFile(_ backend: TestBackend) async throws {
        try await withSettings(backend) { settings, folder in
            let storekit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("SoukCoreTests/Fixtures/Reader.storekit").path
            let app = "com.example.storekit"
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["catalog", "import-storekit", storekit, app] + settings) }
            try await SoukCommand.run(["catalog", "import-storekit", storekit, app, "--non-renewing-duration", "P30D", "--dry-run"] + settings)
            #expect(try await state(settings, app: app) == nil)
            let out = folder.path + "/imported.json"
            try await SoukCommand.run(["catalog", "import-storekit", storekit, app, "--non-renewing-duration", "P30D", "--out", out] + settings)
            let written = try CatalogFile.parse(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
            #expect(written.products.count == 5)
            try await SoukCommand.run(["catalog", "import-storekit", storekit, app, "--non-renewing-duration", "P30D"] + settings)
            let state = try #require(try await state(settings, app: app))
            #expect(state.catalog == written)
            #expect(state.catalog.products.first { $0.type == .nonRenewing }?.duration == ISODuration(days: 30))
        }
    }

    @Test func theApplyReportSaysNoChangeTheSecondTime() {
        let report = CatalogApplyReport(app: "com.example.reader", diff: CatalogDiff(), dryRun: false, revision: 3)
        #expect(report.description == "com.example.reader: no change (revision 3)")
        var diff = CatalogDiff()
        diff.retiredProducts = ["reader.old"]
        let dry = CatalogApplyReport(app: "com.example.reader", diff: diff, dryRun: true, revision: 3)
        #expect(dry.description.hasPrefix("com.example.reader: dry run, nothing applied"))
        #expect(dry.description.contains("- product reader.old (retired"))
    }
}
