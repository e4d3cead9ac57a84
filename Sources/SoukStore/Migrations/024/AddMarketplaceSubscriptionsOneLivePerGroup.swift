import FluentKit
import Foundation
import SQLKit

/// At most one live or pending membership plan per account and plan group (a partial unique
/// index, the same on SQLite and PostgreSQL): two checkouts of a plan at once cannot both start one.
/// Live is every state but `expired` and `revoked` — billing retry and grace period included, as
/// the store still tries to collect. Plans that were already held twice before this step keep
/// running (someone paid for them); all but the newest are set apart in a group of their own.
struct AddMarketplaceSubscriptionsOneLivePerGroup: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        let rows = try await sql.raw("""
            SELECT id, account_id, plan_group FROM marketplace_subscriptions WHERE state NOT IN ('expired', 'revoked')
            ORDER BY started_at DESC, id
            """).all()
        var seen: Set<String> = []
        for row in rows {
            let id = try row.decode(column: "id", as: UUID.self)
            let group = try row.decode(column: "plan_group", as: String?.self) ?? ""
            let key = "\(try row.decode(column: "account_id", as: UUID.self))/\(group)"
            if seen.insert(key).inserted { continue }
            try await sql.raw("""
                UPDATE marketplace_subscriptions SET plan_group = \(bind: "\(group)#\(id.uuidString.lowercased())") WHERE id = \(bind: id)
                """).run()
        }
        try await sql.raw("""
            CREATE UNIQUE INDEX marketplace_subscriptions_one_live ON marketplace_subscriptions (account_id, plan_group)
            WHERE state NOT IN ('expired', 'revoked')
            """).run()
    }

    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).raw("DROP INDEX marketplace_subscriptions_one_live").run()
    }
}
