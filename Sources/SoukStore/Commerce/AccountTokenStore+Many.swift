import Foundation
import SQLKit

extension AccountTokenStore {
    /// One person in one app: whose account token a list names.
    public struct Holder: Hashable, Sendable {
        public var account: UUID
        public var app: String

        public init(account: UUID, app: String) {
            self.account = account
            self.app = app
        }
    }

    /// The account tokens of `holders`, those without one made now: one insert for all of them,
    /// then one look-up, however many there are. A token written first by a parallel call is kept
    /// (the unique `(account_id, app)`), as in `token(account:app:)`.
    public func tokens(_ holders: Set<Holder>) async throws -> [Holder: UUID] {
        guard !holders.isEmpty else { return [:] }
        let sql = database.sql
        let instant = now()
        var insert = sql.insert(into: "account_tokens").columns("account_id", "app", "token", "created_at")
        for holder in holders {
            insert = insert.values(SQLBind(holder.account), SQLBind(holder.app), SQLBind(UUID().uuidString.lowercased()), SQLBind(instant))
        }
        try await insert.ignoringConflicts(with: ["account_id", "app"]).run()
        let rows = try await sql.select().columns("account_id", "app", "token").from("account_tokens")
            .where("account_id", .in, Set(holders.map(\.account)).map { $0 })
            .where("app", .in, Set(holders.map(\.app)).map { $0 })
            .all()
        var tokens: [Holder: UUID] = [:]
        for row in rows {
            let holder = Holder(account: try row.decode(column: "account_id", as: UUID.self), app: try row.decode(column: "app", as: String.self))
            guard holders.contains(holder), let token = UUID(uuidString: try row.decode(column: "token", as: String.self)) else { continue }
            tokens[holder] = token
        }
        guard tokens.count == holders.count else {
            throw PurchaseStoreError("account tokens of \(holders.count - tokens.count) buyers not found after they were written")
        }
        return tokens
    }
}
