import FluentKit
import Foundation
import SoukCore

/// An app of the catalog as the operations, the consoles and the commands see it: the facts of
/// `AppModel`, under the same names, as a value (the model stays inside SoukStore).
public struct AppRecord: Sendable, Equatable {
    public var id: UUID
    public var appleItemId: UInt64
    public var bundleId: String
    public var name: String
    public var subtitle: String
    public var appDescription: String
    public var developerName: String
    public var iconSHA256: String?
    public var access: AccessPolicy
    public var availability: Availability
    public var takedownReason: String?
    /// What the app costs.
    public var pricing: AppPricing
    /// The storefront category's slug (`AppCategory`); nil: none yet.
    public var category: String?
    /// What's new in the latest version, as the storefront shows it.
    public var whatsNew: String?
    /// `AppMedia` as JSON (icon and screenshots with their variants); nil: none.
    public var mediaJSON: String?
    /// The app's place among the home page's featured apps (lowest first); nil: not featured.
    public var featuredOrder: Int?
    /// The developer organisation that owns the app (`DeveloperDirectory`); nil: the marketplace's own.
    public var developerID: String?
    public var createdAt: Date?
    public var updatedAt: Date?

    init(_ model: AppModel) throws {
        id = try model.requireID()
        appleItemId = model.appleItemId
        bundleId = model.bundleId
        name = model.name
        subtitle = model.subtitle
        appDescription = model.appDescription
        developerName = model.developerName
        iconSHA256 = model.iconSHA256
        access = model.access
        availability = model.availability
        takedownReason = model.takedownReason
        pricing = model.pricing
        category = model.category
        whatsNew = model.whatsNew
        mediaJSON = model.mediaJSON
        featuredOrder = model.featuredOrder
        developerID = model.developerID
        createdAt = model.createdAt
        updatedAt = model.updatedAt
    }

    /// The app's media, decoded from `mediaJSON` (nil when it has none or it does not decode).
    public var media: AppMedia? { AppMedia.decode(mediaJSON) }

    /// The app's category, when its slug is on the list.
    public var appCategory: AppCategory? { category.flatMap(AppCategory.init(slug:)) }

    /// The storefront text as the audit log keeps it (`AppModel.auditDetailFields`).
    public var auditDetailFields: [String: String] {
        ["subtitle": subtitle, "category": category ?? "", "description": appDescription, "whats_new": whatsNew ?? ""]
    }

    /// The media as the audit log keeps it: the icon's and each family's screenshots' digests.
    public var auditMediaFields: [String: String] { AppMedia.auditFields(media) }
}

/// What a new app starts with (`CatalogStore.createApp`): the rest is set later, by its own step.
public struct NewApp: Sendable, Equatable {
    public var appleItemId: UInt64
    public var bundleId: String
    public var name: String
    public var subtitle: String
    public var description: String
    public var developerName: String
    public var access: AccessPolicy
    /// The developer organisation that owns the app; nil: the marketplace's own.
    public var developerID: String?

    public init(appleItemId: UInt64, bundleId: String, name: String, subtitle: String = "", description: String = "",
                developerName: String = "", access: AccessPolicy = .public, developerID: String? = nil) {
        self.appleItemId = appleItemId
        self.bundleId = bundleId
        self.name = name
        self.subtitle = subtitle
        self.description = description
        self.developerName = developerName
        self.access = access
        self.developerID = developerID
    }
}

extension CatalogStore {
    /// Adds an app (`createApp(_:)`'s checks: a bundle id and a name, the AppleItemID not taken).
    @discardableResult
    public func createApp(_ new: NewApp) async throws -> AppRecord {
        let model = AppModel(appleItemId: new.appleItemId, bundleId: new.bundleId, name: new.name, subtitle: new.subtitle,
                             description: new.description, developerName: new.developerName, access: new.access)
        model.developerID = new.developerID
        return try AppRecord(try await createApp(model))
    }

    /// The app with this AppleItemID; `CatalogError.notFound` without one.
    public func appRecord(appleItemId: UInt64) async throws -> AppRecord {
        try AppRecord(try await app(appleItemId: appleItemId))
    }

    /// Whether an app with this AppleItemID is in the catalog.
    public func hasApp(appleItemId: UInt64) async throws -> Bool {
        try await AppModel.find(appleItemId: appleItemId, on: database.db) != nil
    }

    /// Every app, by name.
    public func appRecords() async throws -> [AppRecord] {
        try await apps().map(AppRecord.init)
    }
}
