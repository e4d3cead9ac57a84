import Foundation
import SoukCore
import SoukStore

/// An open database with the schema, a blob store and a work area, all in a temporary folder.
public struct StoreFixture: Sendable {
    public let folder: TemporaryFolder
    public let database: SoukDatabase
    public let blobs: BlobStore

    public var catalog: CatalogStore { CatalogStore(database: database) }
    public var importer: PackageImporter { PackageImporter(database: database, blobs: blobs, workArea: folder.path + "/tmp") }

    /// Runs `body` with a fresh store on `backend`, then removes everything.
    public static func with<T: Sendable>(_ backend: TestBackend, _ body: (StoreFixture) async throws -> T) async throws -> T {
        let folder = try TemporaryFolder()
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        let database = try SoukDatabase(location: location, logger: testLogger(), poolTimeout: .seconds(120))
        let fixture = StoreFixture(folder: folder, database: database, blobs: try BlobStore(root: folder.path + "/blobs"))
        do {
            try await database.migrate()
            let result = try await body(fixture)
            await database.shutdown()
            await drop()
            folder.remove()
            return result
        } catch {
            await database.shutdown()
            await drop()
            folder.remove()
            throw error
        }
    }

    /// Creates an app and writes a sample package for it; returns the package folder.
    @discardableResult
    public func makeSample(appleItemId: UInt64 = 6_500_000_001, appleVersionId: UInt64 = 9_000_000_001,
                           bundleId: String = "org.example.sample", shortVersion: String = "1.0", bundleVersion: String = "1",
                           minimumOS: String = "17.0", variantSize: Int = 100_000, createApp: Bool = true,
                           access: AccessPolicy = .public) async throws -> String {
        if createApp, try await AppModel.find(appleItemId: appleItemId, on: database.db) == nil {
            try await catalog.createApp(AppModel(appleItemId: appleItemId, bundleId: bundleId, name: "Sample \(appleItemId)", access: access))
        }
        let out = "\(folder.path)/samples/\(appleItemId)-\(appleVersionId)-\(UUID().uuidString.prefix(8))"
        try SamplePackageMaker(appleItemId: appleItemId, appleVersionId: appleVersionId, bundleId: bundleId,
                               shortVersion: shortVersion, bundleVersion: bundleVersion, minimumOS: OSVersion(minimumOS)!,
                               variantSize: variantSize, chunkSize: 16_384).write(to: out)
        return out
    }
}
