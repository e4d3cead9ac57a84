import Foundation
import SoukApp
import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk content import|list` run in-process, as `souk` parses it.
@Suite struct ContentCommandTests {
    static let app = CommerceCatalogSamples.readerApp

    /// A migrated data folder (and a fresh PostgreSQL database when asked) with the reader catalog applied.
    func withSettings(_ backend: TestBackend, _ body: ([String], TemporaryFolder) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var settings = ["--data-dir", folder.path + "/data"]
        if case .postgres(let url) = location { settings += ["--database-url", url] }
        do {
            try await SoukCommand.run(["migrate"] + settings)
            let catalog = folder.path + "/reader.json"
            try Data(CommerceCatalogSamples.readerFile.utf8).write(to: URL(fileURLWithPath: catalog))
            try await SoukCommand.run(["catalog", "apply", catalog] + settings)
            try await body(settings, folder)
        } catch {
            await drop()
            folder.remove()
            throw error
        }
        await drop()
        folder.remove()
    }

    /// What the database holds for the app, read through a runtime of the same settings.
    func stored(_ settings: [String]) async throws -> [HostedContent] {
        var flags = ["dataDir": settings[1]]
        if settings.count > 3 { flags["databaseUrl"] = settings[3] }
        return try await SoukRuntime.open(try await SoukConfig.load(flags: flags, environment: [:]), logger: testLogger()).closing { runtime in
            try await HostedContentStore(database: runtime.database, blobs: runtime.blobs, workArea: runtime.config.workDir).list(app: Self.app)
        }
    }

    func makePackage(_ path: String, version: String, text: String, extra: String? = nil) throws -> String {
        try FileManager.default.createDirectory(atPath: path + "/Contents", withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["ContentVersion": version, "IAPProductIdentifier": "reader.book.1"],
                                           format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: path + "/ContentInfo.plist"))
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/Contents/page.txt"))
        if let extra { try Data("x".utf8).write(to: URL(fileURLWithPath: "\(path)/\(extra)")) }
        return path
    }

    @Test(arguments: TestBackend.available)
    func importTwiceIsIdempotentAndListShowsVersionsNewestFirst(_ backend: TestBackend) async throws {
        try await withSettings(backend) { settings, folder in
            let v1 = try makePackage(folder.path + "/v1", version: "1", text: "one")
            try await SoukCommand.run(["content", "import", v1, "--app", Self.app] + settings)
            try await SoukCommand.run(["content", "import", v1, "--app", Self.app] + settings)  // same bytes: exit 0, nothing new
            try await SoukCommand.run(["content", "import", try makePackage(folder.path + "/v2", version: "2", text: "two"),
                                       "--app", Self.app] + settings)
            let contents = try await stored(settings)
            #expect(contents.map(\.contentVersion.text) == ["2", "1"])
            #expect(contents.allSatisfy { $0.productId == "reader.book.1" && $0.size > 0 })

            try await SoukCommand.run(["content", "list", "--app", Self.app] + settings)
            try await SoukCommand.run(["content", "list", "--app", Self.app, "--product", "reader.book.1"] + settings)
        }
    }

    @Test(arguments: TestBackend.available)
    func aRefusedPackageFailsWithItsReasonAndChangesNothing(_ backend: TestBackend) async throws {
        try await withSettings(backend) { settings, folder in
            let extra = try makePackage(folder.path + "/extra", version: "1", text: "one", extra: "README.txt")
            let outside = await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["content", "import", extra, "--app", Self.app] + settings)
            }
            #expect(outside?.description.contains("README.txt: is outside ContentInfo.plist and Contents/") == true)

            try await SoukCommand.run(["content", "import", try makePackage(folder.path + "/v1", version: "1", text: "one"),
                                       "--app", Self.app] + settings)
            let changed = await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["content", "import", try makePackage(folder.path + "/v1b", version: "1", text: "changed"),
                                           "--app", Self.app] + settings)
            }
            #expect(changed?.description.contains("already imported with other bytes") == true)
            let noCatalog = await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["content", "import", folder.path + "/v1", "--app", "com.example.none"] + settings)
            }
            #expect(noCatalog?.description.contains("has no in-app catalog") == true)
            #expect(try await stored(settings).count == 1)
        }
    }
}
