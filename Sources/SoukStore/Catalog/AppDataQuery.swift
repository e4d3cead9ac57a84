import FluentKit
import Foundation
import SoukCore

/// An app with its versions, as `restore` and `updates` need them.
public struct CatalogApp: Sendable {
    public var appleItemId: UInt64
    public var bundleId: String
    public var access: AccessPolicy
    public var availability: Availability
    public var versions: [CatalogVersion]
}

/// Loads every app a request names in a fixed number of queries (two), whatever their count, and
/// remembers each app for a second (`ShortLivedCache`), so the common update check — the same
/// popular apps from every device — usually touches no database at all.
public struct AppDataQuery: Sendable {
    let database: SoukDatabase
    let cache: ShortLivedCache<UInt64, CatalogApp>

    public init(database: SoukDatabase, lifetime: Duration = .seconds(1)) {
        self.database = database
        self.cache = ShortLivedCache(lifetime: lifetime)
    }

    public func apps(_ ids: [UInt64]) async throws -> [UInt64: CatalogApp] {
        try await cache.values(for: ids) { missing in try await load(missing) }
    }

    private func load(_ ids: [UInt64]) async throws -> [UInt64: CatalogApp] {
        guard !ids.isEmpty else { return [:] }
        let models = try await AppModel.query(on: database.db)
            .filter(\.$appleItemIdColumn ~~ Set(ids).map(AppleIDColumn.store))
            .with(\.$versions)
            .all()
        var apps: [UInt64: CatalogApp] = [:]
        for model in models {
            let versions = model.versions.map { version in
                CatalogVersion(
                    appleVersionId: version.appleVersionId, bundleVersion: version.bundleVersion,
                    shortVersionString: version.shortVersionString,
                    platforms: version.platforms.compactMap(Platform.init(rawValue:)),
                    minimumOS: Dictionary(version.minimumOS.compactMap { key, value in
                        guard let platform = Platform(rawValue: key), let os = OSVersion(value) else { return nil }
                        return (platform, os)
                    }, uniquingKeysWith: { first, _ in first }),
                    releaseDate: version.releaseDate)
            }
            apps[model.appleItemId] = CatalogApp(appleItemId: model.appleItemId, bundleId: model.bundleId, access: model.access,
                                                 availability: model.availability, versions: versions)
        }
        return apps
    }
}
