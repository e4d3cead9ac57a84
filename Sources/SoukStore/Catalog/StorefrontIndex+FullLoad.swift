import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import SoukCore

extension StorefrontIndex {
    /// Every available app with its latest release, read in pages of `loadPageSize` apps by Apple
    /// item id on one connection, each row by position (`IndexRows`), so that what a page's rows
    /// cost is freed before the next one is read.
    func loadAll() async throws -> StorefrontCatalog {
        let pageSize = loadPageSize
        let postgres = database.location.isPostgres
        return try await IndexRows.session(database) { rows in
            var catalog = StorefrontCatalog()
            var values = CatalogRowValues()
            var after: Int64?
            while true {
                var binds: [IndexRows.Bind] = [.text(Availability.available.rawValue)]
                if let after { binds.append(.int64(after)) }
                let apps = try await rows.rows(
                    "SELECT apple_item_id, name, subtitle, developer_name, description, category, featured_order, icon_sha256, media,"
                        + " prices, requires_entitlement FROM apps WHERE availability = $1" + (after == nil ? "" : " AND apple_item_id > $2")
                        + " ORDER BY apple_item_id LIMIT \(pageSize)",
                    binds,
                    postgres: {
                        try StorefrontAppRow($0.decode((Int64, String, String, String, String, String?, Int64?, String?, String?, String?, String?).self,
                                                       context: .default))
                    },
                    sqlite: { cells in
                        try StorefrontAppRow((cells.int64(0), cells.string(1), cells.string(2), cells.string(3), cells.string(4),
                                              cells.optionalString(5), cells.optionalInt64(6), cells.optionalString(7),
                                              cells.optionalString(8), cells.optionalString(9), cells.optionalString(10)))
                    })
                guard let low = apps.first?.values.0, let high = apps.last?.values.0 else { break }
                let releases = try await rows.rows(
                    "SELECT a.apple_item_id, v.release_date FROM "
                        + IndexRows.pageVersions(postgres: postgres, where: "v.withdrawn_at IS NULL AND v.review_state = $1")
                        + " WHERE a.apple_item_id >= $2 AND a.apple_item_id <= $3",
                    [.text(VersionReviewState.released.rawValue), .int64(low), .int64(high)],
                    postgres: { try $0.decode((Int64, Date).self, context: .default) },
                    sqlite: { try ($0.int64(0), $0.date(1)) })
                var latest: [UInt64: Date] = [:]
                latest.reserveCapacity(releases.count)
                for (item, released) in releases {
                    let id = AppleIDColumn.load(item)
                    if (latest[id] ?? .distantPast) < released { latest[id] = released }
                }
                catalog.add(apps.map { row in
                    let (item, name, subtitle, developer, description, category, featured, icon, media, prices, entitlement) = row.values
                    let id = AppleIDColumn.load(item)
                    return StorefrontApp(appleItemId: id, name: name, subtitle: subtitle, developer: developer, description: description,
                                         category: category, featuredOrder: featured.map { Int($0) }, latestRelease: latest[id],
                                         iconSHA256: icon, mediaJSON: media, pricing: values.pricing(prices, entitlement))
                })
                after = high
                if apps.count < pageSize { break }
            }
            catalog.finish()
            return catalog
        }
    }
}

/// An `apps` row of the storefront index's full load: id, name, subtitle, developer, description,
/// category, featured order, icon, media, prices, required entitlement.
struct StorefrontAppRow: Sendable {
    var values: (Int64, String, String, String, String, String?, Int64?, String?, String?, String?, String?)

    init(_ values: (Int64, String, String, String, String, String?, Int64?, String?, String?, String?, String?)) {
        self.values = values
    }
}
