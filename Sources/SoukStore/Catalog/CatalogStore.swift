import FluentKit
import Foundation
import SoukCore

/// Operator-side reads and writes of the catalog: the marketplace identity, apps and their versions.
/// The CLI, the demo seeder and later the admin API call these; request hot paths use their own queries.
public struct CatalogStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    // MARK: Apps

    /// Adds an app. Fails with `CatalogError.duplicate` when the AppleItemID is taken.
    @discardableResult
    public func createApp(_ app: AppModel) async throws -> AppModel {
        guard !app.bundleId.isEmpty, app.bundleId.count <= 255 else { throw CatalogError.invalid("bundle id must be 1–255 characters") }
        guard !app.name.trimmingCharacters(in: .whitespaces).isEmpty else { throw CatalogError.invalid("name must not be empty") }
        if try await AppModel.find(appleItemId: app.appleItemId, on: database.db) != nil {
            throw CatalogError.duplicate("an app with AppleItemID \(app.appleItemId) already exists")
        }
        do {
            try await app.create(on: database.db)
        } catch {
            // A concurrent create of the same id lost the race on the unique index.
            if try await AppModel.find(appleItemId: app.appleItemId, on: database.db) != nil {
                throw CatalogError.duplicate("an app with AppleItemID \(app.appleItemId) already exists")
            }
            throw error
        }
        return app
    }

    public func apps() async throws -> [AppModel] {
        try await AppModel.query(on: database.db).sort(\.$name).all()
    }

    public func app(appleItemId: UInt64) async throws -> AppModel {
        guard let app = try await AppModel.find(appleItemId: appleItemId, on: database.db) else {
            throw CatalogError.notFound("no app with AppleItemID \(appleItemId)")
        }
        return app
    }

    /// The versions still offered (released, not withdrawn), newest release first.
    public func versions(of app: AppModel) async throws -> [AppVersionModel] {
        try await AppVersionModel.query(on: database.db)
            .filter(\.$app.$id == app.requireID())
            .filter(\.$withdrawnAt == nil)
            .filter(\.$reviewStateRaw == VersionReviewState.released.rawValue)
            .sort(\.$releaseDate, .descending)
            .all()
    }

    /// Every version of an app, withdrawn, in review or rejected too, newest release first: what the
    /// app's developer sees of it.
    public func allVersions(of app: AppModel) async throws -> [AppVersionModel] {
        try await AppVersionModel.query(on: database.db).filter(\.$app.$id == app.requireID()).sort(\.$releaseDate, .descending).all()
    }

    /// One version of an app, withdrawn or not.
    public func version(appleItemId: UInt64, appleVersionId: UInt64) async throws -> AppVersionModel {
        let app = try await app(appleItemId: appleItemId)
        guard let version = try await AppVersionModel.query(on: database.db)
            .filter(\.$app.$id == app.requireID())
            .filter(\.$appleVersionIdColumn == AppleIDColumn.store(appleVersionId))
            .first() else {
            throw CatalogError.notFound("app \(appleItemId) has no version \(appleVersionId)")
        }
        return version
    }

    /// Withdraws a version (`withdrawn: true`, with an optional reason) or offers it again. Devices on
    /// a withdrawn version get a 404 failure for it; every process sees the change within a second
    /// (the catalog change log). Returns false when the version already was in that state.
    @discardableResult
    public func setWithdrawn(_ withdrawn: Bool, appleItemId: UInt64, appleVersionId: UInt64, reason: String? = nil) async throws -> Bool {
        let version = try await version(appleItemId: appleItemId, appleVersionId: appleVersionId)
        guard (version.withdrawnAt != nil) != withdrawn || (withdrawn && version.withdrawnReason != reason) else { return false }
        version.withdrawnAt = withdrawn ? (version.withdrawnAt ?? Date()) : nil
        version.withdrawnReason = withdrawn ? reason : nil
        try await version.save(on: database.db)
        return true
    }

    /// Files of one version's package, by path.
    public func files(of version: AppVersionModel) async throws -> [PackageFileModel] {
        try await PackageFileModel.query(on: database.db).filter(\.$version.$id == version.requireID()).sort(\.$path).all()
    }

    /// Changes whether an app can be installed; `reason` is kept for a takedown and cleared otherwise.
    @discardableResult
    public func setAvailability(appleItemId: UInt64, to availability: Availability, reason: String? = nil) async throws -> AppRecord {
        let app = try await app(appleItemId: appleItemId)
        app.availability = availability
        app.takedownReason = availability == .available ? nil : reason
        try await app.save(on: database.db)
        return try AppRecord(app)
    }

    /// Sets what an app costs (`souk apps set-price`): the price list replaces the old one;
    /// `requiresEntitlement` `.some(nil)` clears the entitlement, `nil` keeps it.
    @discardableResult
    public func setPricing(appleItemId: UInt64, prices: [Price]?, requiresEntitlement: String??) async throws -> AppRecord {
        let app = try await app(appleItemId: appleItemId)
        var pricing = app.pricing
        if let prices { pricing.prices = prices }
        if let requiresEntitlement { pricing.requiresEntitlement = requiresEntitlement }
        app.pricing = pricing
        try await app.save(on: database.db)
        return try AppRecord(app)
    }

    /// Largest icon Souk accepts (App Store icons are 1024×1024 PNGs, typically well under this).
    public static let maxIconBytes = 2 << 20

    /// Stores a PNG icon for an app in the blob store and points the app at it.
    @discardableResult
    public func setIcon(appleItemId: UInt64, pngAt path: String, blobs: BlobStore) async throws -> AppRecord {
        let app = try await app(appleItemId: appleItemId)
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CatalogError.invalid("cannot read icon \(path)") }
        let head = (try? handle.read(upToCount: 8)) ?? Data()
        try? handle.close()
        guard head == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw CatalogError.invalid("icon \(path) is not a PNG file")
        }
        let staged = try blobs.stage(fileAt: path)
        guard staged.size <= Self.maxIconBytes else {
            blobs.discard(staged)
            throw CatalogError.invalid("icon \(path) is larger than \(Self.maxIconBytes) bytes")
        }
        try blobs.commit(staged)
        try await blobs.publish(staged.sha256)
        app.iconSHA256 = staged.sha256
        try await app.save(on: database.db)
        return try AppRecord(app)
    }

    // MARK: Marketplace identity

    /// The marketplace identity, created with defaults on first use.
    public func marketplace(defaultKeyId: String) async throws -> MarketplaceModel {
        if let existing = try await MarketplaceModel.current(on: database.db) { return existing }
        let created = MarketplaceModel(name: "Souk Marketplace", appleItemId: 0, installVerificationKeyId: defaultKeyId)
        try await created.create(on: database.db)
        return created
    }

    public func updateMarketplace(_ marketplace: MarketplaceModel) async throws {
        try await marketplace.save(on: database.db)
    }

    // MARK: Accounts

    @discardableResult
    public func createAccount(email: String, passwordHash: String) async throws -> AccountModel {
        let normalized = AccountModel.normalize(email: email)
        guard Self.looksLikeEmail(normalized) else { throw CatalogError.invalid("\(email) is not an email address") }
        if try await AccountModel.find(email: normalized, on: database.db) != nil {
            throw CatalogError.duplicate("an account with email \(normalized) already exists")
        }
        let account = AccountModel(email: normalized, passwordHash: passwordHash)
        try await account.create(on: database.db)
        return account
    }

    public func account(id: UUID) async throws -> AccountModel? {
        try await AccountModel.find(id, on: database.db)
    }

    public func account(email: String) async throws -> AccountModel? {
        try await AccountModel.find(email: email, on: database.db)
    }

    public func requireAccount(email: String) async throws -> AccountModel {
        guard let account = try await account(email: email) else {
            throw CatalogError.notFound("no account with email \(AccountModel.normalize(email: email))")
        }
        return account
    }

    public func accounts() async throws -> [AccountModel] {
        try await AccountModel.query(on: database.db).sort(\.$email).all()
    }

    /// A plain shape check: one `@`, something on both sides, a dot in the domain, no spaces.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".")
            && !parts[1].hasSuffix(".") && !text.contains(where: \.isWhitespace) && text.count <= 254
    }
}

/// Expected catalog outcomes that the CLI and the API turn into messages and statuses.
public enum CatalogError: Error, CustomStringConvertible, Equatable {
    case notFound(String)
    case duplicate(String)
    case invalid(String)

    public var description: String {
        switch self {
        case .notFound(let message), .duplicate(let message), .invalid(let message): message
        }
    }
}
