import FluentKit
import Foundation
import SQLKit
import SoukCore

/// The operator console's view of the catalog: every app, whatever its availability.
extension CatalogStore {
    /// Apps whose name or bundle id contains `query` (case-insensitive, `%` and `_` taken
    /// literally), or whose AppleItemID is `query`; every app for an empty query. By name, then
    /// AppleItemID; `limit` rows from `offset`.
    public func consoleApps(matching query: String, limit: Int, offset: Int) async throws -> [AppRecord] {
        let text = query.trimmingCharacters(in: .whitespaces).lowercased()
        let pattern = "%" + text.replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%")
            .replacingOccurrences(of: "_", with: "!_") + "%"
        let id = AppleID.parse(text).map(AppleIDColumn.store) ?? -1
        let rows = try await database.sql.raw("""
            SELECT id FROM apps
            WHERE \(bind: text) = '' OR lower(name) LIKE \(bind: pattern) ESCAPE '!' OR lower(bundle_id) LIKE \(bind: pattern) ESCAPE '!'
               OR apple_item_id = \(bind: id)
            ORDER BY name, apple_item_id LIMIT \(bind: limit) OFFSET \(bind: offset)
            """).all()
        let ids = try rows.map { try $0.decode(column: "id", as: UUID.self) }
        guard !ids.isEmpty else { return [] }
        let apps = Dictionary(uniqueKeysWithValues: try await AppModel.query(on: database.db).filter(\.$id ~~ ids).all().compactMap { app in
            app.id.map { ($0, app) }
        })
        return try ids.compactMap { apps[$0] }.map(AppRecord.init)
    }

    /// The names of the apps `ids`, in one query (the console's lists name many apps at once); an
    /// id without an app is left out.
    public func appNames(_ ids: Set<UInt64>) async throws -> [UInt64: String] {
        guard !ids.isEmpty else { return [:] }
        let apps = try await AppModel.query(on: database.db).filter(\.$appleItemIdColumn ~~ ids.map(AppleIDColumn.store)).all()
        return Dictionary(apps.map { ($0.appleItemId, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
