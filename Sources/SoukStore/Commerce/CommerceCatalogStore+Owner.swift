import Foundation
import SQLKit

/// An organisation applied a catalog that another organisation owns; nothing was written.
public struct CatalogOwnedByAnother: Error, Equatable, CustomStringConvertible {
    public var app: String

    public init(app: String) { self.app = app }

    public var description: String { "the in-app catalog \(app) belongs to another developer organisation" }
}

extension CommerceCatalogStore {
    /// Makes the catalog of `app` the organisation `owner`'s, inside the apply's transaction: true
    /// when it had no owner, false when it already was theirs; throws `CatalogOwnedByAnother` (the
    /// transaction then rolls back what the apply wrote) when another organisation owns it.
    static func claim(app: String, for owner: String, on sql: any SQLDatabase) async throws -> Bool {
        let row = try await sql.raw("SELECT developer_id FROM commerce_apps WHERE app = \(bind: app)").first()
        let before = try row?.decode(column: "developer_id", as: String?.self)
        if before == owner { return false }
        // Conditional, so an owner written by another process since the read is never overwritten.
        let claimed = try await sql.raw("""
            UPDATE commerce_apps SET developer_id = \(bind: owner) WHERE app = \(bind: app) AND developer_id IS NULL RETURNING id
            """).first() != nil
        guard claimed else { throw CatalogOwnedByAnother(app: app) }
        return true
    }
}
