import Foundation

/// `dtype` of an install verification token (spec §4): `download` for the first install of an app
/// by a person, `redownload` after — whatever order of calls the device uses (spec §0: a web install
/// is token exchange → license → restore → download; a restore from a backup starts at restore).
///
/// The ledger keeps, per account, app and device, the first time an install of the app was under
/// way there and the download type it was given. Every call of one install (license, restore)
/// comes within `installWindow` of the first, so they all sign the same `dtype`; a later install on
/// that device, or any install on another device, is a `redownload`.
public enum DownloadTypeRule {
    /// How long the calls of one install may be spread out: the token lifetime (20 minutes) plus room.
    public static let installWindow: TimeInterval = 30 * 60

    /// An install the ledger already holds for the account and app.
    public struct Install: Sendable, Equatable {
        public var device: String
        public var downloadType: DownloadType
        public var firstAt: Date

        public init(device: String, downloadType: DownloadType, firstAt: Date) {
            self.device = device
            self.downloadType = downloadType
            self.firstAt = firstAt
        }
    }

    /// The download type for an install on `device` (nil: not known yet, as for a link made on the
    /// website) at `now`, given the account's installs of the app so far.
    public static func downloadType(device: String?, installs: [Install], now: Date) -> DownloadType {
        if let device, let mine = installs.first(where: { $0.device == device }) {
            return now.timeIntervalSince(mine.firstAt) <= installWindow ? mine.downloadType : .redownload
        }
        return installs.isEmpty ? .download : .redownload
    }
}
