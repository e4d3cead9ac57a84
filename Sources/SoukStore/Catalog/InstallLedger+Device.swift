import Foundation
import SoukCore

extension InstallLedger {
    /// The download type an install of `appleItemId` on `device` (the OAuth client id of the
    /// account's token) would get now, by the same rule as `recordInstalls`, recording nothing: the
    /// marketplace app asks for a token before the device installs anything (`POST
    /// /api/v1/apps/<id>/install`), and an install that is then abandoned must not count.
    public func downloadType(accountID: UUID, appleItemId: UInt64, device: String, now: Date = Date()) async throws -> DownloadType {
        let installs = try await installs(accountID: accountID, among: [appleItemId])
        return DownloadTypeRule.downloadType(device: device, installs: installs[appleItemId] ?? [], now: now)
    }

    /// The apps among `appleItemIds` the account has installed on `device`, in one query.
    public func installed(accountID: UUID, device: String, among appleItemIds: [UInt64]) async throws -> Set<UInt64> {
        let installs = try await installs(accountID: accountID, among: appleItemIds)
        return Set(installs.compactMap { id, list in list.contains { $0.device == device } ? id : nil })
    }
}
