import FluentKit
import Foundation
import SoukCore

/// One signing key as the signer and the JWKS need it.
public struct InstallVerificationKeyRecord: Sendable, Equatable {
    /// 0 for the marketplace's own key; otherwise the web-distributed app's AppleItemID.
    public var owner: UInt64
    public var kid: String
    public var keyFile: String
    public var publicKeyPEM: String
    public var createdAt: Date?
    public var retiredAt: Date?

    public static let marketplaceOwner: UInt64 = 0

    init(_ model: InstallVerificationKeyModel) {
        owner = model.owner
        kid = model.kid
        keyFile = model.keyFile
        publicKeyPEM = model.publicKeyPEM
        createdAt = model.createdAt
        retiredAt = model.retiredAt
    }
}

/// Which keys sign install verification tokens, and which stay published.
///
/// Rotation: `activate` retires the owner's current key and makes a new one current in one
/// transaction; retired keys stay in the JWKS until every token they signed has expired.
public struct InstallVerificationKeyStore: Sendable {
    let database: SoukDatabase

    public init(database: SoukDatabase) {
        self.database = database
    }

    /// The current key of every owner that has one (the marketplace and web-distributed apps).
    public func activeKeys() async throws -> [UInt64: InstallVerificationKeyRecord] {
        let models = try await InstallVerificationKeyModel.query(on: database.db).filter(\.$retiredAt == nil).all()
        return Dictionary(models.map { ($0.owner, InstallVerificationKeyRecord($0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The keys a verifier may still meet: the current ones and those retired after `retiredAfter`.
    public func publishedKeys(retiredAfter: Date) async throws -> [InstallVerificationKeyRecord] {
        try await InstallVerificationKeyModel.query(on: database.db)
            .group(.or) { $0.filter(\.$retiredAt == nil).filter(\.$retiredAt > retiredAfter) }
            .sort(\.$createdAt)
            .all()
            .map(InstallVerificationKeyRecord.init)
    }

    /// Every key of `owner`, newest first (for the operator).
    public func keys(owner: UInt64) async throws -> [InstallVerificationKeyRecord] {
        try await InstallVerificationKeyModel.query(on: database.db)
            .filter(\.$ownerColumn == AppleIDColumn.store(owner))
            .sort(\.$createdAt, .descending)
            .all()
            .map(InstallVerificationKeyRecord.init)
    }

    /// Makes a new key current for `owner`, retiring the one it replaces. For the marketplace the
    /// identity's key id follows, in the same transaction.
    public func activate(owner: UInt64, kid: String, keyFile: String, publicKeyPEM: String, now: Date = Date()) async throws {
        try Self.validate(kid: kid)
        try await database.transaction { db in
            if try await InstallVerificationKeyModel.query(on: db).filter(\.$kid == kid).first() != nil {
                throw CatalogError.duplicate("a signing key with key id \(kid) already exists")
            }
            try await InstallVerificationKeyModel.query(on: db)
                .filter(\.$ownerColumn == AppleIDColumn.store(owner)).filter(\.$retiredAt == nil)
                .set(\.$retiredAt, to: now).update()
            let model = InstallVerificationKeyModel()
            model.kid = kid
            model.ownerColumn = AppleIDColumn.store(owner)
            model.keyFile = keyFile
            model.publicKeyPEM = publicKeyPEM
            try await model.create(on: db)
            if owner == InstallVerificationKeyRecord.marketplaceOwner, let marketplace = try await MarketplaceModel.current(on: db) {
                marketplace.installVerificationKeyId = kid
                try await marketplace.save(on: db)
            }
        }
    }

    /// Records the key that signed before rotation existed (the keys folder's first key) as the
    /// marketplace's current key, unless the marketplace already has one. Safe to race.
    public func adoptInitialKey(kid: String, keyFile: String, publicKeyPEM: String) async throws {
        guard try await activeKeys()[InstallVerificationKeyRecord.marketplaceOwner] == nil else { return }
        do {
            try await activate(owner: InstallVerificationKeyRecord.marketplaceOwner, kid: kid, keyFile: keyFile, publicKeyPEM: publicKeyPEM)
        } catch CatalogError.duplicate {
            // Another process adopted it first.
        }
    }

    /// Gives the current key of `owner` the key id App Store Connect assigned to it.
    public func rename(owner: UInt64, to kid: String) async throws {
        try Self.validate(kid: kid)
        try await database.transaction { db in
            guard let current = try await InstallVerificationKeyModel.query(on: db)
                .filter(\.$ownerColumn == AppleIDColumn.store(owner)).filter(\.$retiredAt == nil).first() else {
                throw CatalogError.notFound("no current signing key")
            }
            guard current.kid != kid else { return }
            if try await InstallVerificationKeyModel.query(on: db).filter(\.$kid == kid).first() != nil {
                throw CatalogError.duplicate("a signing key with key id \(kid) already exists")
            }
            current.kid = kid
            try await current.save(on: db)
            if owner == InstallVerificationKeyRecord.marketplaceOwner, let marketplace = try await MarketplaceModel.current(on: db) {
                marketplace.installVerificationKeyId = kid
                try await marketplace.save(on: db)
            }
        }
    }

    /// Retires the current key of an app: it leaves web-distribution mode and its tokens are
    /// signed by the marketplace again. The marketplace's own key is only ever replaced, never retired.
    public func retire(owner: UInt64, now: Date = Date()) async throws {
        guard owner != InstallVerificationKeyRecord.marketplaceOwner else {
            throw CatalogError.invalid("the marketplace key can only be rotated (souk keys rotate), not retired")
        }
        let count = try await InstallVerificationKeyModel.query(on: database.db)
            .filter(\.$ownerColumn == AppleIDColumn.store(owner)).filter(\.$retiredAt == nil).count()
        guard count > 0 else { throw CatalogError.notFound("app \(owner) has no signing key of its own") }
        try await InstallVerificationKeyModel.query(on: database.db)
            .filter(\.$ownerColumn == AppleIDColumn.store(owner)).filter(\.$retiredAt == nil)
            .set(\.$retiredAt, to: now).update()
    }

    static func validate(kid: String) throws {
        guard !kid.isEmpty, kid.count <= 64, kid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw CatalogError.invalid("a key id is 1–64 letters, digits, '-', '_' or '.'")
        }
    }
}
