import FluentKit
import Foundation
import SoukCore

/// An app in the catalog (`apps`).
public final class AppModel: Model, @unchecked Sendable {
    public static let schema = "apps"

    @ID(key: .id) public var id: UUID?
    @Field(key: "apple_item_id") var appleItemIdColumn: Int64
    @Field(key: "bundle_id") public var bundleId: String
    @Field(key: "name") public var name: String
    @Field(key: "subtitle") public var subtitle: String
    @Field(key: "description") public var appDescription: String
    @Field(key: "developer_name") public var developerName: String
    @OptionalField(key: "icon_sha256") public var iconSHA256: String?
    @Field(key: "access") public var accessRaw: String
    @Field(key: "availability") public var availabilityRaw: String
    @OptionalField(key: "takedown_reason") public var takedownReason: String?
    /// `AppPricing.encode` of the price list; nil or `[]`: not sold.
    @OptionalField(key: "prices") var pricesJSON: String?
    @OptionalField(key: "requires_entitlement") public var requiresEntitlement: String?
    /// The storefront category's slug (`AppCategory`); nil: none yet.
    @OptionalField(key: "category") public var category: String?
    /// What's new in the latest version, as the storefront shows it.
    @OptionalField(key: "whats_new") public var whatsNew: String?
    /// `AppMedia` as JSON (icon and screenshots with their variants); nil: none.
    @OptionalField(key: "media") public var mediaJSON: String?
    /// The app's place among the home page's featured apps (lowest first); nil: not featured.
    @OptionalField(key: "featured_order") public var featuredOrder: Int?
    /// The developer organisation that owns the app (`DeveloperDirectory`); nil: the marketplace's own.
    @OptionalField(key: "developer_id") public var developerID: String?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?
    @Children(for: \.$app) public var versions: [AppVersionModel]

    public init() {}

    public init(appleItemId: UInt64, bundleId: String, name: String, subtitle: String = "", description: String = "",
                developerName: String = "", access: AccessPolicy = .public) {
        self.appleItemIdColumn = AppleIDColumn.store(appleItemId)
        self.bundleId = bundleId
        self.name = name
        self.subtitle = subtitle
        self.appDescription = description
        self.developerName = developerName
        self.accessRaw = access.rawValue
        self.availabilityRaw = Availability.available.rawValue
    }

    public var appleItemId: UInt64 { AppleIDColumn.load(appleItemIdColumn) }

    /// Unknown stored values (written by a newer Souk) read as the most restrictive choice.
    public var access: AccessPolicy {
        get { AccessPolicy(rawValue: accessRaw) ?? .account }
        set { accessRaw = newValue.rawValue }
    }

    public var availability: Availability {
        get { Availability(rawValue: availabilityRaw) ?? .takenDown }
        set { availabilityRaw = newValue.rawValue }
    }

    /// What the app costs.
    public var pricing: AppPricing {
        get { AppPricing(prices: AppPricing.decode(pricesJSON), requiresEntitlement: requiresEntitlement) }
        set {
            pricesJSON = newValue.prices.isEmpty ? nil : AppPricing.encode(newValue.prices)
            requiresEntitlement = newValue.requiresEntitlement
        }
    }

    /// Finds an app by its AppleItemID.
    public static func find(appleItemId: UInt64, on db: any Database) async throws -> AppModel? {
        try await AppModel.query(on: db).filter(\.$appleItemIdColumn == AppleIDColumn.store(appleItemId)).first()
    }
}
