import Foundation
import Logging
import SoukCore
import SoukStore

/// What a running Souk holds open: settings, database, blob store and keys. The server, every CLI
/// command and the tests open it the same way.
public struct SoukRuntime: Sendable {
    public let config: SoukConfig
    public let logger: Logger
    public let database: SoukDatabase
    public let blobs: BlobStore
    public let keys: SoukKeys

    public var catalog: CatalogStore { CatalogStore(database: database) }

    public var tokens: TokenStore {
        TokenStore(database: database, lifetimes: config.tokenLifetimes)
    }

    public var importer: PackageImporter {
        PackageImporter(database: database, blobs: blobs, workArea: config.workDir)
    }

    /// Creates the data folder, loads or generates keys and connects to the database.
    ///
    /// SQLite is migrated on the spot. PostgreSQL is shared by several processes and changed only by
    /// `souk migrate` (`migrate: true`); otherwise an unmigrated database stops start-up.
    public static func open(_ config: SoukConfig, logger: Logger, migrate: Bool = false) async throws -> SoukRuntime {
        try FileManager.default.createDirectory(atPath: config.dataDir, withIntermediateDirectories: true)
        let blobs = try BlobStore(root: config.blobsDir)
        let keys = try SoukKeys.loadOrCreate(in: config.keysDir)
        let database = try SoukDatabase(location: config.database, logger: logger)
        do {
            if migrate || !config.database.isPostgres {
                try await database.migrate()
            } else {
                let pending = try await database.pendingMigrations()
                if !pending.isEmpty {
                    throw StartupError("the PostgreSQL database has \(pending.count) pending migration(s) (\(pending.joined(separator: ", "))); run `souk migrate` with the same SOUK_DATABASE_URL first")
                }
            }
        } catch {
            await database.shutdown()
            if error is StartupError { throw error }
            throw StartupError("cannot prepare \(config.database): \(String(reflecting: error))")
        }
        return SoukRuntime(config: config, logger: logger, database: database, blobs: blobs, keys: keys)
    }

    /// Closes the database connections.
    public func close() async {
        await database.shutdown()
    }
}

/// A reason Souk cannot start, said in words an operator can act on.
public struct StartupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
