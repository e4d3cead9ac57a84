import FluentKit
import Foundation
import SQLKit
import SoukCore

/// Which apps each account has installed, on which devices (`installs`: one row per account, app
/// and device), so that install verification tokens say `download` for an account's first install
/// of an app and `redownload` after that (`DownloadTypeRule`; advertisers see the difference).
///
/// An install is recorded where it really happens on the device's side: when a license is issued
/// for it and when `restore` answers it. Links made on the website and token exchanges record
/// nothing, so an abandoned link never turns the next install into a redownload.
public struct InstallLedger: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// The download type an install of `appleItemId` by this account gets, before any device is known
    /// (links made on the website). Records nothing.
    public func downloadType(accountID: UUID, appleItemId: UInt64, now: Date = Date()) async throws -> DownloadType {
        let installs = try await installs(accountID: accountID, among: [appleItemId])
        return DownloadTypeRule.downloadType(device: nil, installs: installs[appleItemId] ?? [], now: now)
    }

    /// Records that installs of `appleItemIds` by the account are under way on `device` (the OAuth
    /// client id of its token) and answers the download type of each, in two statements. Calling it
    /// again for the same install answers the same types and adds nothing.
    @discardableResult
    public func recordInstalls(accountID: UUID, appleItemIds: [UInt64], device: String, now: Date = Date()) async throws -> [UInt64: DownloadType] {
        guard !appleItemIds.isEmpty else { return [:] }
        let known = try await installs(accountID: accountID, among: appleItemIds)
        var types: [UInt64: DownloadType] = [:]
        var insert = database.sql.insert(into: "installs")
            .columns("id", "account_id", "apple_item_id", "client_id", "download_type", "created_at")
        var adds = false
        for id in Set(appleItemIds) {
            let earlier = known[id] ?? []
            let type = DownloadTypeRule.downloadType(device: device, installs: earlier, now: now)
            types[id] = type
            if !earlier.contains(where: { $0.device == device }) {
                insert = insert.values(SQLBind(UUID()), SQLBind(accountID), SQLBind(AppleIDColumn.store(id)), SQLBind(device),
                                       SQLBind(type.rawValue), SQLBind(now))
                adds = true
            }
        }
        if adds {
            // A concurrent call for the same install may have added the row first: its type is the same.
            try await insert.ignoringConflicts(with: ["account_id", "apple_item_id", "client_id"]).run()
        }
        return types
    }

    /// The installs the account holds of each of `appleItemIds`, in one query.
    func installs(accountID: UUID, among appleItemIds: [UInt64]) async throws -> [UInt64: [DownloadTypeRule.Install]] {
        guard !appleItemIds.isEmpty else { return [:] }
        let rows = try await database.sql.select().columns("apple_item_id", "client_id", "download_type", "created_at").from("installs")
            .where("account_id", .equal, accountID)
            .where("apple_item_id", .in, Set(appleItemIds).map(AppleIDColumn.store))
            .all()
        var found: [UInt64: [DownloadTypeRule.Install]] = [:]
        for row in rows {
            let item = AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self))
            found[item, default: []].append(DownloadTypeRule.Install(
                device: try row.decode(column: "client_id", as: String?.self) ?? "",
                downloadType: DownloadType(rawValue: try row.decode(column: "download_type", as: String?.self) ?? "") ?? .redownload,
                firstAt: try row.decode(column: "created_at", as: Date?.self) ?? .distantPast))
        }
        return found
    }
}
