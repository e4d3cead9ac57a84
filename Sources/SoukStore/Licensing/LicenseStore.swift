import FluentKit
import Foundation
import SQLKit
import SoukCore

/// One license as issued to a device (`licenses`).
public struct LicenseRecord: Sendable, Equatable {
    /// Unique, random, in 1..<2^63 (iOS 17.4 mishandles larger ids).
    public var licenseId: UInt64
    public var accountID: UUID?
    public var appleItemId: UInt64
    public var appleVersionId: UInt64
    public var deviceId: String
    public var issuedAt: Date
    public var expiresAt: Date
    public var renewals: Int
    public var revokedAt: Date?
    public var revokedReason: String?

    public func isLive(at now: Date) -> Bool { revokedAt == nil && expiresAt > now }
}

/// Licenses, their renewal and revocation, and the per-variant key blobs App License Delivery needs.
/// Issuing is in `LicenseStore+Issue.swift`, key blobs in `+KeyBlobs`, pruning in `+Cleanup`.
public struct LicenseStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// A licence's own columns. It names its device by a row of `devices` (`device`); the device's
    /// id comes from there (`select`).
    static let columns = ["license_id", "account_id", "apple_item_id", "apple_version_id", "issued_at",
                          "expires_at", "renewals", "revoked_at", "revoked_reason"]

    /// Licences with their device's id: `licenses l` joined to `devices d`.
    static func select(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().columns(columns.map { SQLColumn($0, table: "l") } + [SQLColumn("device_id", table: "d")])
            .from(SQLAlias(SQLIdentifier("licenses"), as: SQLIdentifier("l")))
            .join(SQLAlias(SQLIdentifier("devices"), as: SQLIdentifier("d")), method: SQLJoinMethod.inner,
                  on: SQLColumn("id", table: "d"), .equal, SQLColumn("device", table: "l"))
    }

    /// `device` is the row of `devices` naming `deviceId`.
    static func device(is deviceId: String) -> SQLQueryString {
        "device = (SELECT id FROM devices WHERE device_id = \(bind: deviceId))"
    }

    public func licenses(ids: [UInt64]) async throws -> [UInt64: LicenseRecord] {
        let valid = ids.filter { $0 > 0 && $0 <= UInt64(Int64.max) }
        guard !valid.isEmpty else { return [:] }
        let rows = try await Self.select(database.sql).where("license_id", .in, valid.map { Int64($0) }).all()
        return Dictionary(try rows.map { try Self.decode($0) }.map { ($0.licenseId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Starts the licenses' new term — issued now, expiring after `duration` — in one update
    /// (revoked ones are left alone); returns them as they are now.
    public func renew(_ licenseIds: [UInt64], duration: TimeInterval, now: Date = Date()) async throws -> [UInt64: LicenseRecord] {
        let valid = licenseIds.filter { $0 > 0 && $0 <= UInt64(Int64.max) }
        guard !valid.isEmpty else { return [:] }
        try await database.sql.update("licenses")
            .set("issued_at", to: now).set("expires_at", to: now.addingTimeInterval(duration))
            .set(SQLColumn("renewals"), to: SQLBinaryExpression(SQLColumn("renewals"), .add, SQLLiteral.numeric("1")))
            .where("license_id", .in, valid.map { Int64($0) }).where("revoked_at", .is, SQLLiteral.null)
            .run()
        return try await licenses(ids: valid)
    }

    /// The devices of an account that hold a live license now: its active installs.
    public func liveDevices(accountID: UUID, now: Date = Date()) async throws -> Set<String> {
        let rows = try await database.sql.raw("""
            SELECT DISTINCT d.device_id FROM licenses l JOIN devices d ON d.id = l.device \
            WHERE l.account_id = \(bind: accountID) AND l.revoked_at IS NULL AND l.expires_at > \(bind: now)
            """).all()
        return Set(try rows.map { try $0.decode(column: "device_id", as: String.self) })
    }

    /// What a revocation targets; at least one must be set.
    public struct Selection: Sendable {
        public var accountID: UUID?
        public var appleItemId: UInt64?
        public var deviceId: String?
        public var licenseId: UInt64?

        public init(accountID: UUID? = nil, appleItemId: UInt64? = nil, deviceId: String? = nil, licenseId: UInt64? = nil) {
            self.accountID = accountID
            self.appleItemId = appleItemId
            self.deviceId = deviceId
            self.licenseId = licenseId
        }

        var isEmpty: Bool { accountID == nil && appleItemId == nil && deviceId == nil && licenseId == nil }

        func apply(to query: any SQLPredicateBuilder) {
            if let accountID { _ = query.where("account_id", .equal, accountID) }
            if let appleItemId { _ = query.where("apple_item_id", .equal, AppleIDColumn.store(appleItemId)) }
            if let deviceId { _ = query.where(LicenseStore.device(is: deviceId)) }
            if let licenseId { _ = query.where("license_id", .equal, Int64(licenseId)) }
        }
    }

    /// Revokes the unrevoked licenses that match; their next renewal lists them as ineligible.
    /// Returns how many were revoked.
    @discardableResult
    public func revoke(_ selection: Selection, reason: String, now: Date = Date()) async throws -> Int {
        guard !selection.isEmpty else { throw CatalogError.invalid("say which licenses to revoke (account, app, device or license id)") }
        let count = database.sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("licenses")
            .where("revoked_at", .is, SQLLiteral.null)
        selection.apply(to: count)
        let matching = try await count.first()?.decode(column: "n", as: Int.self) ?? 0
        let update = database.sql.update("licenses").set("revoked_at", to: now).set("revoked_reason", to: reason)
            .where("revoked_at", .is, SQLLiteral.null)
        selection.apply(to: update)
        try await update.run()
        return matching
    }

    /// Licenses, newest first, optionally of one account or app.
    public func list(accountID: UUID? = nil, appleItemId: UInt64? = nil, limit: Int = 100) async throws -> [LicenseRecord] {
        let query = Self.select(database.sql)
        Selection(accountID: accountID, appleItemId: appleItemId).apply(to: query)
        return try await query.orderBy("issued_at", .descending).limit(limit).all().map { try Self.decode($0) }
    }

    /// A licence of `select`, or (with `deviceId`) of a statement that returned its own columns only.
    static func decode(_ row: any SQLRow, deviceId: String? = nil) throws -> LicenseRecord {
        LicenseRecord(
            licenseId: UInt64(try row.decode(column: "license_id", as: Int64.self)),
            accountID: try row.decode(column: "account_id", as: UUID?.self),
            appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
            appleVersionId: AppleIDColumn.load(try row.decode(column: "apple_version_id", as: Int64.self)),
            deviceId: try deviceId ?? row.decode(column: "device_id", as: String.self),
            issuedAt: try row.decode(column: "issued_at", as: Date.self),
            expiresAt: try row.decode(column: "expires_at", as: Date.self),
            renewals: try row.decode(column: "renewals", as: Int.self),
            revokedAt: try row.decode(column: "revoked_at", as: Date?.self),
            revokedReason: try row.decode(column: "revoked_reason", as: String?.self))
    }
}
