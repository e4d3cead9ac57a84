import Foundation

/// A version as the restore and updates rules see it.
public struct CatalogVersion: Sendable, Equatable {
    public var appleVersionId: UInt64
    public var bundleVersion: String
    public var shortVersionString: String
    public var platforms: [Platform]
    public var minimumOS: [Platform: OSVersion]
    public var releaseDate: Date

    public init(appleVersionId: UInt64, bundleVersion: String, shortVersionString: String, platforms: [Platform],
                minimumOS: [Platform: OSVersion], releaseDate: Date) {
        self.appleVersionId = appleVersionId
        self.bundleVersion = bundleVersion
        self.shortVersionString = shortVersionString
        self.platforms = platforms
        self.minimumOS = minimumOS
        self.releaseDate = releaseDate
    }
}

/// Which version a device gets (spec §5–§6).
public enum VersionChoice {
    /// A version is offered only when the request's platform is among its platforms and the OS is at
    /// least that platform's minimum (compared numerically: 17.10 > 17.4). iPads install iOS
    /// packages: a request from iPadOS matches `ipados` and `ios`.
    public static func isCompatible(_ version: CatalogVersion, platform: Platform, osVersion: OSVersion) -> Bool {
        func runs(on candidate: Platform) -> Bool {
            guard version.platforms.contains(candidate) else { return false }
            if let minimum = version.minimumOS[candidate], osVersion < minimum { return false }
            return true
        }
        return runs(on: platform) || (platform == .iPadOS && runs(on: .iOS))
    }

    /// Newest first, by release date then by id so the order is total.
    public static func newestFirst(_ versions: [CatalogVersion]) -> [CatalogVersion] {
        func newer(_ a: CatalogVersion, _ b: CatalogVersion) -> Bool {
            (a.releaseDate, a.appleVersionId) > (b.releaseDate, b.appleVersionId)
        }
        // Versions from the catalog index are already in order: check before sorting.
        var ordered = true
        var index = 1
        while ordered && index < versions.count {
            ordered = !newer(versions[index], versions[index - 1])
            index += 1
        }
        if ordered { return versions }
        return versions.sorted(by: newer)
    }

    /// Whether `a` was released after `b` (release date, then id, so the order is total).
    static func isNewer(_ a: CatalogVersion, than b: CatalogVersion) -> Bool {
        (a.releaseDate, a.appleVersionId) > (b.releaseDate, b.appleVersionId)
    }

    /// What `restore` answers for one app.
    public enum RestoreOutcome: Sendable, Equatable {
        /// Install this version.
        case restore(CatalogVersion)
        /// The requested version was withdrawn: a 404 failure from then on (spec §8), never a
        /// silent substitute.
        case withdrawn
        /// Nothing the device can run: a 404 failure.
        case noCompatibleVersion
    }

    /// `restore`: the requested version when it is offered and compatible; a withdrawn one is a
    /// failure; no version (or an unknown one) gets the newest compatible version.
    public static func restore(_ versions: [CatalogVersion], withdrawn: [CatalogVersion] = [], requested: UInt64?,
                               platform: Platform, osVersion: OSVersion) -> RestoreOutcome {
        if let requested, withdrawn.contains(where: { $0.appleVersionId == requested }) { return .withdrawn }
        let compatible = newestFirst(versions).filter { isCompatible($0, platform: platform, osVersion: osVersion) }
        if let requested, let exact = compatible.first(where: { $0.appleVersionId == requested }) { return .restore(exact) }
        return compatible.first.map(RestoreOutcome.restore) ?? .noCompatibleVersion
    }

    /// What `updates` answers for one app.
    public enum UpdateOutcome: Sendable, Equatable {
        /// A newer compatible version: offer it.
        case newer(CatalogVersion)
        /// The installed version is the newest compatible one: leave the app out.
        case current
        /// The installed version was withdrawn and nothing newer runs on the device: a 404 failure.
        case withdrawn
        /// Nothing the device can run: a 404 failure.
        case noCompatibleVersion
    }

    /// `updates`: the newest compatible version released after the installed one, never an older
    /// one (also when the installed version was withdrawn). An unknown or absent (`"0"`) installed
    /// version gets the newest compatible one.
    public static func update(_ versions: [CatalogVersion], withdrawn: [CatalogVersion] = [], installed: UInt64?,
                              platform: Platform, osVersion: OSVersion) -> UpdateOutcome {
        let ordered = newestFirst(versions)
        let newest = ordered.first { isCompatible($0, platform: platform, osVersion: osVersion) }
        if let installed, let gone = withdrawn.first(where: { $0.appleVersionId == installed }) {
            guard let newest, isNewer(newest, than: gone) else { return .withdrawn }
            return .newer(newest)
        }
        guard let newest else { return .noCompatibleVersion }
        guard let installed, let current = ordered.first(where: { $0.appleVersionId == installed }) else {
            return .newer(newest)
        }
        return isNewer(newest, than: current) ? .newer(newest) : .current
    }
}
