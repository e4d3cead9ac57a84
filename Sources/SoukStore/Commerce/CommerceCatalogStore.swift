import FluentKit
import Foundation
import SQLKit
import SoukCore

/// The in-app product catalogs of apps (`souk catalog apply`, the product lists, the purchase path).
///
/// A catalog is applied whole, in one transaction: products in the file are added or updated, products
/// on sale that the file leaves out are retired (kept, off sale, their ids never reused), and the app's
/// revision grows by one — or nothing happens at all when the file states what is already there.
public struct CommerceCatalogStore: Sendable {
    let database: SoukDatabase
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.now = now
    }

    /// Makes `catalog` the app's catalog (or, with `dryRun`, only says what that would change).
    ///
    /// Throws `CatalogFileError` naming the offending path when the catalog breaks a rule
    /// (`CatalogFile.validate`) or reuses a retired product's id or SKU; nothing is written then.
    /// Applying the same catalog again changes nothing and reports "no change".
    ///
    /// With `owner` (a developer organisation's id), the catalog is that organisation's in the same
    /// transaction: one without an owner becomes theirs (`claimed`); one another organisation owns
    /// throws `CatalogOwnedByAnother` and nothing is written.
    public func apply(_ catalog: CommerceCatalog, dryRun: Bool = false, owner: String? = nil) async throws -> CatalogApplyReport {
        try CatalogFile.validate(catalog)
        if dryRun {
            let current = try await Self.state(app: catalog.app, on: database.db)
            let diff = try CatalogDiff.between(current, catalog)
            return CatalogApplyReport(app: catalog.app, diff: diff, dryRun: true, revision: current?.revision)
        }
        let isPostgres = database.location.isPostgres
        let instant = now()
        return try await database.transaction { db in
            if isPostgres {
                // Two applies of one app take turns; the second sees what the first wrote.
                try await (db as! any SQLDatabase)
                    .raw("SELECT pg_advisory_xact_lock(\(bind: Self.advisoryLockClass), hashtext(\(bind: catalog.app)))").run()
            }
            let current = try await Self.state(app: catalog.app, on: db)
            let diff = try CatalogDiff.between(current, catalog)
            guard !diff.isEmpty else {
                return CatalogApplyReport(app: catalog.app, diff: diff, dryRun: false, revision: current?.revision)
            }
            let revision = try await Self.write(catalog, over: current, diff: diff, at: instant, on: db)
            var report = CatalogApplyReport(app: catalog.app, diff: diff, dryRun: false, revision: revision, applied: true)
            if let owner {
                report.claimed = try await Self.claim(app: catalog.app, for: owner, on: db as! any SQLDatabase)
            }
            return report
        }
    }

    /// The app's catalog as held now (products on sale in order, retired ones), or nil for an app
    /// without one.
    public func state(app: String) async throws -> CommerceCatalogState? {
        try await Self.state(app: app, on: database.db)
    }

    /// The revision of the app's catalog (one single-row query), or nil for an app without one.
    public func revision(app: String) async throws -> Int? {
        try await CommerceAppModel.query(on: database.db).filter(\.$app == app).first().map { Int($0.revision) }
    }

    /// Every app that has a catalog, sorted.
    public func apps() async throws -> [String] {
        try await CommerceAppModel.query(on: database.db).sort(\.$app).all().map(\.app)
    }

    /// The first key of the catalog's advisory locks (the second is the hash of the app).
    static var advisoryLockClass: Int32 { 0x5C0C }

    static func state(app: String, on db: any Database) async throws -> CommerceCatalogState? {
        guard let row = try await CommerceAppModel.query(on: db).filter(\.$app == app).first() else { return nil }
        let entitlements = try await CommerceEntitlementModel.query(on: db).filter(\.$app == app).sort(\.$position).all()
        let products = try await CommerceProductModel.query(on: db).filter(\.$app == app).sort(\.$position).all()
        var onSale: [ProductDefinition] = []
        var retired: [(at: Date, product: ProductDefinition)] = []
        for model in products {
            let product: ProductDefinition
            do {
                product = try CatalogFile.product(json: model.definition)
            } catch {
                throw CommerceCatalogStoreError.unreadableDefinition(app: app, product: model.productId, reason: error.description)
            }
            if let retiredAt = model.retiredAt {
                retired.append((retiredAt, product))
            } else {
                onSale.append(product)
            }
        }
        retired.sort { $0.at != $1.at ? $0.at < $1.at : $0.product.id < $1.product.id }
        var stores: CommerceStoreSettings?
        if let json = row.stores {
            do {
                stores = try CatalogFile.stores(json: json)
            } catch {
                throw CommerceCatalogStoreError.unreadableDefinition(app: app, product: "stores", reason: error.description)
            }
        }
        let catalog = CommerceCatalog(app: app, allowSandbox: row.allowSandbox,
                                      entitlements: entitlements.map { EntitlementDefinition(id: $0.entitlementId, title: $0.title) },
                                      products: onSale, stores: stores)
        return CommerceCatalogState(catalog: catalog, retired: retired.map(\.product), revision: Int(row.revision), modifiedAt: row.modifiedAt)
    }

    /// Writes the changes of `diff`; answers the new revision.
    static func write(_ catalog: CommerceCatalog, over current: CommerceCatalogState?, diff: CatalogDiff, at instant: Date,
                      on db: any Database) async throws -> Int {
        // Whole seconds, always later than the last change: `Last-Modified` has one-second
        // precision, and two changes within a second must still carry different dates.
        var modifiedAt = Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))
        if let current, modifiedAt <= current.modifiedAt {
            modifiedAt = current.modifiedAt.addingTimeInterval(1)
        }
        let row = try await CommerceAppModel.query(on: db).filter(\.$app == catalog.app).first() ?? {
            let created = CommerceAppModel()
            created.app = catalog.app
            created.revision = 0
            created.createdAt = instant
            return created
        }()
        row.allowSandbox = catalog.allowSandbox
        if let stores = catalog.stores {
            row.stores = stores.isEmpty ? nil : CatalogFile.jsonValue(stores).compactText()
        }
        row.revision += 1
        row.modifiedAt = modifiedAt
        try await row.save(on: db)

        try await CommerceEntitlementModel.query(on: db).filter(\.$app == catalog.app).delete()
        for (position, entitlement) in catalog.entitlements.enumerated() {
            let model = CommerceEntitlementModel()
            model.app = catalog.app
            model.entitlementId = entitlement.id
            model.title = entitlement.title
            model.position = position
            try await model.create(on: db)
        }

        let existing = try await CommerceProductModel.query(on: db).filter(\.$app == catalog.app).filter(\.$retiredAt == nil).all()
        var byId = Dictionary(existing.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        for (position, product) in catalog.products.enumerated() {
            let definition = CatalogFile.jsonValue(product).compactText()
            if let model = byId.removeValue(forKey: product.id) {
                guard model.definition != definition || model.position != position || model.type != product.type.rawValue else { continue }
                model.definition = definition
                model.type = product.type.rawValue
                model.position = position
                model.updatedAt = instant
                try await model.update(on: db)
            } else {
                let model = CommerceProductModel()
                model.app = catalog.app
                model.productId = product.id
                model.type = product.type.rawValue
                model.definition = definition
                model.position = position
                model.createdAt = instant
                model.updatedAt = instant
                try await model.create(on: db)
            }
        }
        for model in byId.values {
            model.retiredAt = instant
            model.updatedAt = instant
            try await model.update(on: db)
        }
        return Int(row.revision)
    }
}

/// What `CommerceCatalogStore.apply` did or, in a dry run, would do.
public struct CatalogApplyReport: Sendable, Equatable, CustomStringConvertible {
    public var app: String
    public var diff: CatalogDiff
    public var dryRun: Bool
    /// The catalog's revision after the call (nil: the app still has no catalog).
    public var revision: Int?
    /// True when something was written.
    public var applied: Bool
    /// True when this apply made the catalog its `owner`'s (it had none).
    public var claimed = false

    public init(app: String, diff: CatalogDiff, dryRun: Bool, revision: Int?, applied: Bool = false) {
        self.app = app
        self.diff = diff
        self.dryRun = dryRun
        self.revision = revision
        self.applied = applied
    }

    /// True when the catalog already was what was applied.
    public var unchanged: Bool { diff.isEmpty }

    /// The diff's lines and what became of them, e.g. `com.example.reader: no change (revision 3)`.
    public var description: String {
        let revisionText = revision.map { " (revision \($0))" } ?? ""
        if diff.isEmpty { return "\(app): no change\(revisionText)" }
        let header = dryRun ? "\(app): dry run, nothing applied; applying would make these changes:"
            : "\(app): applied\(revisionText):"
        return ([header] + diff.lines.map { "  " + $0 }).joined(separator: "\n")
    }
}

/// A stored catalog that this version of Souk cannot read back (written by hand or by a newer version).
public enum CommerceCatalogStoreError: Error, CustomStringConvertible {
    case unreadableDefinition(app: String, product: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableDefinition(let app, let product, let reason):
            "the stored definition of product \(product) of \(app) cannot be read: \(reason)"
        }
    }
}
