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
    /// The catalog in memory for the hot paths, kept current from the change log.
    public let catalogIndex: CatalogIndex
    /// Install verification signing keys (rotation, web distribution).
    public let installVerificationKeys: InstallVerificationKeyring
    /// In-app product catalogs per app, in memory, seen by every process within the refresh interval.
    public let commerceCatalogs: CommerceCatalogCache
    /// Granted purchases per (account, app) in memory for the entitlement check; this process's
    /// purchase writes forget entries at once (`purchases`), other processes' within the refresh interval.
    public let entitlementIndex: EntitlementIndex
    /// Access token → account for the commerce hot paths, held for the refresh interval.
    public let bearerCache: BearerCache
    /// The dashboard's counts per day, gathered in memory and written by `DailyCountsWriter`.
    public let dailyCounts: DailyCounts

    /// The purchase store, telling the entitlement index what each write changed.
    public var purchases: PurchaseStore {
        PurchaseStore(database: database, onChange: { [entitlementIndex] account, app in
            entitlementIndex.invalidate(account: account, app: app)
        })
    }

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
        let blobs = try BlobStore(root: config.blobsDir, remote: config.objectStore.map { S3ObjectStore(settings: $0) })
        let keys = try SoukKeys.loadOrCreate(in: config.keysDir)
        let database = try SoukDatabase(location: config.database, logger: logger,
                                        poolTimeout: .seconds(config.databasePoolWaitSeconds))
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
        let runtime = SoukRuntime(
            config: config, logger: logger, database: database, blobs: blobs, keys: keys,
            catalogIndex: CatalogIndex(database: database, refreshInterval: config.catalogRefreshInterval, logger: logger),
            installVerificationKeys: InstallVerificationKeyring(
                store: InstallVerificationKeyStore(database: database), keysDir: config.keysDir,
                refreshInterval: config.catalogRefreshInterval),
            commerceCatalogs: CommerceCatalogCache(store: CommerceCatalogStore(database: database),
                                                   refreshInterval: config.catalogRefreshInterval, logger: logger),
            entitlementIndex: EntitlementIndex(database: database, refreshInterval: config.catalogRefreshInterval,
                                               capacity: config.entitlementCacheEntries, logger: logger),
            bearerCache: BearerCache(tokens: TokenStore(database: database, lifetimes: config.tokenLifetimes),
                                     lifetime: config.catalogRefreshInterval, capacity: config.tokenCacheEntries),
            dailyCounts: DailyCounts(database: database))
        do {
            let marketplace = try await runtime.catalog.marketplaceIdentity(defaultKeyId: keys.installVerificationKeyId)
            try await runtime.installVerificationKeys.adoptInitialKey(keys, kid: marketplace.installVerificationKeyId)
        } catch {
            await database.shutdown()
            throw StartupError("cannot prepare the signing keys: \(String(reflecting: error))")
        }
        return runtime
    }

    /// Closes the database connections.
    public func close() async {
        await database.shutdown()
    }

    /// Runs `body` with this runtime and closes it afterwards, whatever happens. A runtime released
    /// unclosed trips AsyncKit's "shutdown() was not called before deinit" assertion, which stops
    /// the whole process (a test run ended so when a step between open and close threw).
    public func closing<T>(_ body: (SoukRuntime) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }
}

/// A reason Souk cannot start, said in words an operator can act on.
public struct StartupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
