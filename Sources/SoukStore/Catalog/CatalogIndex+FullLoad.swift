import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import SoukCore

extension CatalogIndex {
    /// Every app with its released versions, read in pages of `loadPageSize` apps by Apple item id
    /// on one connection, each row by position (`IndexRows`), so that what a page's rows cost is
    /// freed before the next one is read. The JSON columns (`platforms`, `minimum_os`, `prices`)
    /// take a few distinct values across a catalog: each distinct text is parsed once.
    func loadAll() async throws -> PackedCatalogApps {
        let pageSize = loadPageSize
        let postgres = database.location.isPostgres
        return try await IndexRows.session(database) { rows in
            var packed = PackedCatalogApps()
            var parsed = CatalogRowValues()
            var after: Int64?
            while true {
                let apps = try await rows.rows(
                    "SELECT apple_item_id, bundle_id, access, availability, prices, requires_entitlement FROM apps"
                        + (after == nil ? "" : " WHERE apple_item_id > $1") + " ORDER BY apple_item_id LIMIT \(pageSize)",
                    after.map { [IndexRows.Bind.int64($0)] } ?? [],
                    postgres: { try CatalogAppRow($0.decode((Int64, String, String, String, String?, String?).self, context: .default)) },
                    sqlite: { try CatalogAppRow(($0.int64(0), $0.string(1), $0.string(2), $0.string(3), $0.optionalString(4), $0.optionalString(5))) })
                guard let low = apps.first?.item, let high = apps.last?.item else { return packed }
                // JSON as text on both databases (PostgreSQL keeps `platforms` as text[], `minimum_os` as jsonb).
                let platforms = postgres ? "array_to_json(v.platforms)::text" : "v.platforms"
                let minimumOS = postgres ? "v.minimum_os::text" : "v.minimum_os"
                let versions = try await rows.rows(
                    "SELECT a.apple_item_id, v.apple_version_id, v.bundle_version, v.short_version_string, \(platforms), \(minimumOS),"
                        + " v.release_date, v.withdrawn_at IS NOT NULL FROM " + IndexRows.pageVersions(postgres: postgres, where: "v.review_state = $1")
                        + " WHERE a.apple_item_id >= $2 AND a.apple_item_id <= $3",
                    [.text(Self.released), .int64(low), .int64(high)],
                    postgres: { try CatalogVersionRow($0.decode((Int64, Int64, String, String, String, String, Date, Bool).self, context: .default)) },
                    sqlite: { cells in
                        try CatalogVersionRow((cells.int64(0), cells.int64(1), cells.string(2), cells.string(3), cells.string(4), cells.string(5),
                                               cells.date(6), cells.int64(7) != 0))
                    })
                for app in try parsed.apps(apps, versions) { packed[app.appleItemId] = app }
                after = high
                if apps.count < pageSize { return packed }
            }
        }
    }
}

/// An `apps` row of the catalog index's full load.
struct CatalogAppRow: Sendable {
    var item: Int64, bundleId: String, access: String, availability: String, prices: String?, requiresEntitlement: String?

    init(_ values: (Int64, String, String, String, String?, String?)) {
        (item, bundleId, access, availability, prices, requiresEntitlement) = values
    }
}

/// An `app_versions` row of the catalog index's full load, its JSON columns as text.
struct CatalogVersionRow: Sendable {
    var item: Int64, versionId: Int64, bundleVersion: String, shortVersionString: String, platforms: String, minimumOS: String
    var releaseDate: Date, withdrawn: Bool

    init(_ values: (Int64, Int64, String, String, String, String, Date, Bool)) {
        (item, versionId, bundleVersion, shortVersionString, platforms, minimumOS, releaseDate, withdrawn) = values
    }
}

/// The parsed values of the JSON columns, by their text: a catalog has a few distinct ones.
struct CatalogRowValues {
    private var platformSets: [String: [Platform]] = [:]
    private var minimumOSes: [String: [Platform: OSVersion]] = [:]
    private var pricings: [PricingText: AppPricing] = [:]

    private struct PricingText: Hashable {
        var prices: String?
        var requiresEntitlement: String?
    }

    /// The apps of `appRows` with their versions among `versionRows`, as `CatalogIndex` reads them
    /// through SQLKit.
    mutating func apps(_ appRows: [CatalogAppRow], _ versionRows: [CatalogVersionRow]) throws -> [CatalogApp] {
        var versions: [UInt64: [CatalogVersion]] = [:]
        var withdrawn: [UInt64: [CatalogVersion]] = [:]
        for row in versionRows {
            let version = CatalogVersion(appleVersionId: AppleIDColumn.load(row.versionId), bundleVersion: row.bundleVersion,
                                         shortVersionString: row.shortVersionString, platforms: try platforms(row.platforms),
                                         minimumOS: try minimumOS(row.minimumOS), releaseDate: row.releaseDate)
            let item = AppleIDColumn.load(row.item)
            if row.withdrawn {
                withdrawn[item, default: []].append(version)
            } else {
                versions[item, default: []].append(version)
            }
        }
        return appRows.map { row in
            let item = AppleIDColumn.load(row.item)
            return CatalogApp(appleItemId: item, bundleId: row.bundleId, access: AccessPolicy(rawValue: row.access) ?? .account,
                              availability: Availability(rawValue: row.availability) ?? .takenDown,
                              versions: versions[item] ?? [], withdrawnVersions: withdrawn[item] ?? [],
                              pricing: pricing(row.prices, row.requiresEntitlement))
        }
    }

    private mutating func platforms(_ text: String) throws -> [Platform] {
        if let known = platformSets[text] { return known }
        let list = try JSONDecoder().decode([String].self, from: Data(text.utf8)).compactMap(Platform.init(rawValue:))
        platformSets[text] = list
        return list
    }

    private mutating func minimumOS(_ text: String) throws -> [Platform: OSVersion] {
        if let known = minimumOSes[text] { return known }
        let raw = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        var parsed: [Platform: OSVersion] = [:]
        for (key, value) in raw {
            if let platform = Platform(rawValue: key), let os = OSVersion(value), parsed[platform] == nil { parsed[platform] = os }
        }
        minimumOSes[text] = parsed
        return parsed
    }

    /// `apps.prices` and `apps.requires_entitlement` read as `AppPricing` (the storefront's full load too).
    mutating func pricing(_ prices: String?, _ requiresEntitlement: String?) -> AppPricing {
        let key = PricingText(prices: prices, requiresEntitlement: requiresEntitlement)
        if let known = pricings[key] { return known }
        let pricing = AppPricing(prices: AppPricing.decode(prices), requiresEntitlement: requiresEntitlement)
        pricings[key] = pricing
        return pricing
    }
}
