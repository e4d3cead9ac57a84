import FluentKit
import SQLKit

/// An app's versions by its app, newest first, without reading every version of every app.
/// The load test (scripts/load.sh, 100,000 apps) found app pages and the catalog refresh scanning
/// `app_versions` whole: 17 ms alone, 30–50 ms under load, the busiest statement of the day's mix.
struct AddAppVersionsAppIndex: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await (database as! any SQLDatabase).raw("CREATE INDEX app_versions_app ON app_versions (app_id, release_date)").run()
    }

    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).raw("DROP INDEX app_versions_app").run()
    }
}
