import FluentKit
import Foundation
import SQLKit
import SoukCore

/// Which apps each account has installed, on which devices (`installs`), so that install
/// verification tokens say `download` for an account's first install of an app and `redownload`
/// after that (advertisers see the difference).
public struct InstallLedger: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// The download type the next install of `appleItemId` by this account gets.
    public func downloadType(accountID: UUID, appleItemId: UInt64) async throws -> DownloadType {
        try await installedApps(accountID: accountID, among: [appleItemId]).isEmpty ? .download : .redownload
    }

    /// Which of `appleItemIds` the account has installed before, in one query.
    public func installedApps(accountID: UUID, among appleItemIds: [UInt64]) async throws -> Set<UInt64> {
        guard !appleItemIds.isEmpty else { return [] }
        let rows = try await database.sql.select().distinct().column("apple_item_id").from("installs")
            .where("account_id", .equal, accountID)
            .where("apple_item_id", .in, Set(appleItemIds).map(AppleIDColumn.store))
            .all()
        return Set(try rows.map { AppleIDColumn.load(try $0.decode(column: "apple_item_id", as: Int64.self)) })
    }

    /// Records installs of several apps by the account on one device, in one statement.
    public func record(accountID: UUID, appleItemIds: [UInt64], clientId: String?) async throws {
        guard !appleItemIds.isEmpty else { return }
        let now = Date()
        var insert = database.sql.insert(into: "installs").columns("id", "account_id", "apple_item_id", "client_id", "created_at")
        for id in appleItemIds {
            insert = insert.values(SQLBind(UUID()), SQLBind(accountID), SQLBind(AppleIDColumn.store(id)), SQLBind(clientId), SQLBind(now))
        }
        try await insert.run()
    }
}
