import Foundation

/// Xcode's StoreKit configuration file (`.storekit`, JSON, versions 1 to 4) read into a catalog, so
/// that a developer's existing local setup comes in as is (`souk catalog import-storekit`).
///
/// What is read: `products` (`Consumable`, `NonConsumable`), `nonRenewingSubscriptions`,
/// `subscriptionGroups[].subscriptions` (`RecurringSubscription`: `recurringSubscriptionPeriod`,
/// `groupNumber` as the level, `introductoryOffer`), `localizations` (`displayName`, `description`,
/// `locale` with `_` read as `-`), `displayPrice` (a decimal in the currency of
/// `settings._storefront`, USD when there is none) and `familyShareable`. Promotional and offer-code
/// offers, the test settings and StoreKit errors are Xcode's testing aids and are not imported.
/// Each subscription group becomes an entitlement granted by all its subscriptions. The file does
/// not say how long a non-renewing subscription lasts: `nonRenewingDuration` does.
public enum StoreKitConfiguration {
    public struct Options: Sendable {
        /// The length of the file's non-renewing subscriptions (required when it has any).
        public var nonRenewingDuration: ISODuration?
        /// The currency of `displayPrice`, instead of the one of `settings._storefront`.
        public var currency: String?

        public init(nonRenewingDuration: ISODuration? = nil, currency: String? = nil) {
            self.nonRenewingDuration = nonRenewingDuration
            self.currency = currency
        }
    }

    /// The catalog the file states for `app`, validated like a catalog file; errors name the path in the `.storekit` file.
    public static func parse(_ bytes: [UInt8], app: String, options: Options = Options()) throws(CatalogFileError) -> CommerceCatalog {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw CatalogFileError(path: "", message: "not JSON (\(error))")
        }
        let root = try CatalogFileObject(document, path: "", allowed: nil)
        guard root["products"] != nil || root["subscriptionGroups"] != nil || root["nonRenewingSubscriptions"] != nil else {
            throw CatalogFileError(path: "", message: "not a StoreKit configuration file (no products, nonRenewingSubscriptions or subscriptionGroups)")
        }
        let settings = try root["settings"].map { value throws(CatalogFileError) in try CatalogFileObject(value, path: "settings", allowed: nil) }
        let defaultLocale = try settings?.string("_locale").map(locale) ?? "en-US"
        let storefront = try settings?.string("_storefront")
        let currency: String
        if let chosen = options.currency { currency = chosen } else { currency = try Self.currency(storefront: storefront) }
        let reader = Reader(currency: currency, defaultLocale: defaultLocale)

        var catalog = CommerceCatalog(app: app)
        for (index, item) in try root.array("products").enumerated() {
            let object = try CatalogFileObject(item, path: "products[\(index)]", allowed: nil)
            let typeName = try object.requiredString("type")
            let type: ProductType
            switch typeName {
            case "Consumable": type = .consumable
            case "NonConsumable": type = .nonConsumable
            default: throw CatalogFileError(path: object.path("type"), message: "\"\(typeName)\" is not Consumable or NonConsumable")
            }
            catalog.products.append(try reader.product(object, type: type))
        }
        for (index, item) in try root.array("nonRenewingSubscriptions").enumerated() {
            let object = try CatalogFileObject(item, path: "nonRenewingSubscriptions[\(index)]", allowed: nil)
            var product = try reader.product(object, type: .nonRenewing)
            guard let duration = options.nonRenewingDuration else {
                throw CatalogFileError(path: object.path("productID"), message: "the StoreKit file does not say how long a non-renewing subscription lasts: give its duration (--non-renewing-duration P30D)")
            }
            product.duration = duration
            catalog.products.append(product)
        }
        for (groupIndex, item) in try root.array("subscriptionGroups").enumerated() {
            let group = try CatalogFileObject(item, path: "subscriptionGroups[\(groupIndex)]", allowed: nil)
            let groupId = try group.string("id")
            guard let name = try group.string("name") ?? groupId, !name.isEmpty else {
                throw CatalogFileError(path: group.path("name"), message: "is required")
            }
            let entitlement = EntitlementDefinition(id: entitlementId(name), title: name)
            if !catalog.entitlements.contains(where: { $0.id == entitlement.id }) { catalog.entitlements.append(entitlement) }
            for (index, subscription) in try group.array("subscriptions").enumerated() {
                let object = try CatalogFileObject(subscription, path: group.path("subscriptions[\(index)]"), allowed: nil)
                var product = try reader.product(object, type: .autoRenewable)
                product.group = name
                product.level = try object.integer("groupNumber") ?? 1
                guard let period = try object.duration("recurringSubscriptionPeriod") else {
                    throw CatalogFileError(path: object.path("recurringSubscriptionPeriod"), message: "is required")
                }
                product.period = period
                if let offer = object["introductoryOffer"] {
                    product.introductoryOffer = try reader.offer(CatalogFileObject(offer, path: object.path("introductoryOffer"), allowed: nil))
                }
                product.entitlements = [entitlement.id]
                catalog.products.append(product)
            }
        }
        try CatalogFile.validate(catalog)
        return catalog
    }

    /// The imported catalog laid over the app's current one: a product already sold under the same
    /// Apple product id keeps its Souk id, entitlements, other stores' SKUs, promotion and (for a
    /// non-renewing subscription) duration; products without an Apple SKU stay; entitlements the
    /// current catalog has are kept. Apple products missing from the file are left out (retired on apply).
    public static func merge(_ imported: CommerceCatalog, into current: CommerceCatalog?) -> CommerceCatalog {
        guard let current else { return imported }
        var merged = current
        var byAppleSKU: [String: ProductDefinition] = [:]
        for product in current.products {
            if let sku = product.skus[.appleStore] { byAppleSKU[sku] = product }
        }
        var products: [ProductDefinition] = []
        var usedEntitlements: Set<String> = []
        for var product in imported.products {
            if let sku = product.skus[.appleStore], let existing = byAppleSKU[sku] {
                product.id = existing.id
                product.entitlements = existing.entitlements
                product.skus = existing.skus.merging(product.skus) { _, new in new }
                product.promoted = existing.promoted
                if product.type == .nonRenewing, existing.duration != nil { product.duration = existing.duration }
                if product.description.isEmpty { product.description = existing.description }
            }
            usedEntitlements.formUnion(product.entitlements)
            products.append(product)
        }
        products += current.products.filter { $0.skus[.appleStore] == nil }
        merged.products = products
        for entitlement in imported.entitlements where usedEntitlements.contains(entitlement.id) {
            if !merged.entitlements.contains(where: { $0.id == entitlement.id }) { merged.entitlements.append(entitlement) }
        }
        return merged
    }

    /// An entitlement id from a subscription group's name: `Reader Plus` → `reader-plus`.
    static func entitlementId(_ name: String) -> String {
        var id = ""
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" {
                id.unicodeScalars.append(scalar)
            } else if !id.hasSuffix("-"), !id.isEmpty {
                id += "-"
            }
        }
        while id.hasSuffix("-") { id.removeLast() }
        return id.isEmpty ? "subscription" : String(id.prefix(100))
    }

    /// `en_US` → `en-US`.
    static func locale(_ identifier: String) -> String {
        identifier.replacingOccurrences(of: "_", with: "-")
    }

    /// The currency of an App Store storefront (ISO 3166-1 alpha-3); USD without one.
    static func currency(storefront: String?) throws(CatalogFileError) -> String {
        guard let storefront else { return "USD" }
        guard let currency = storefrontCurrencies[storefront.uppercased()] else {
            throw CatalogFileError(path: "settings._storefront", message: "no known currency for storefront \"\(storefront)\" (give one: --currency EUR)")
        }
        return currency
    }

    /// Reads the parts every product of the file shares.
    struct Reader {
        let currency: String
        let defaultLocale: String

        func product(_ object: CatalogFileObject, type: ProductType) throws(CatalogFileError) -> ProductDefinition {
            let productID = try object.requiredString("productID")
            var product = ProductDefinition(id: productID, type: type, skus: [.appleStore: productID])
            for (index, item) in try object.array("localizations").enumerated() {
                let localization = try CatalogFileObject(item, path: object.path("localizations[\(index)]"), allowed: nil)
                let locale = StoreKitConfiguration.locale(try localization.string("locale") ?? defaultLocale)
                if let name = try localization.string("displayName"), !name.isEmpty { product.title[locale] = name }
                if let description = try localization.string("description"), !description.isEmpty { product.description[locale] = description }
            }
            if product.title.isEmpty {
                product.title[defaultLocale] = try object.string("referenceName") ?? productID
            }
            if let price = try object.string("displayPrice") {
                product.prices = [Price(currency: currency, amount: try minorUnits(price, path: object.path("displayPrice")))]
            }
            product.familyShareable = (try object.bool("familyShareable") ?? false) && (type == .nonConsumable || type == .autoRenewable)
            return product
        }

        func offer(_ object: CatalogFileObject) throws(CatalogFileError) -> IntroductoryOffer {
            let modeName = try object.requiredString("paymentMode")
            let mode: IntroductoryOffer.Mode
            switch modeName {
            case "free": mode = .freeTrial
            case "payAsYouGo": mode = .payAsYouGo
            case "payUpFront": mode = .payUpFront
            default: throw CatalogFileError(path: object.path("paymentMode"), message: "\"\(modeName)\" is not free, payAsYouGo or payUpFront")
            }
            guard let period = try object.duration("subscriptionPeriod") else {
                throw CatalogFileError(path: object.path("subscriptionPeriod"), message: "is required")
            }
            var prices: [Price] = []
            if mode != .freeTrial, let price = try object.string("displayPrice") {
                prices = [Price(currency: currency, amount: try minorUnits(price, path: object.path("displayPrice")))]
            }
            var periods = 1
            if mode == .payAsYouGo, let count = try object.integer("numberOfPeriods") { periods = count }
            return IntroductoryOffer(mode: mode, period: period, periods: periods, prices: prices)
        }

        /// `"4.99"` in USD → 499; `"1500"` in KRW → 1500. Never through floating point.
        func minorUnits(_ text: String, path: String) throws(CatalogFileError) -> Int {
            let digits = ISO4217.minorDigits(currency)
            let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let whole = Int(parts[0]), whole >= 0, parts[0].allSatisfy(\.isASCII) else {
                throw CatalogFileError(path: path, message: "\"\(text)\" is not a price such as 4.99")
            }
            var fraction = parts.count == 2 ? String(parts[1]) : ""
            guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw CatalogFileError(path: path, message: "\"\(text)\" is not a price such as 4.99")
            }
            while fraction.count > digits, fraction.hasSuffix("0") { fraction.removeLast() }
            guard fraction.count <= digits else {
                throw CatalogFileError(path: path, message: "\"\(text)\" has more decimals than \(currency) has (\(digits))")
            }
            fraction += String(repeating: "0", count: digits - fraction.count)
            var factor = 1
            for _ in 0..<digits { factor *= 10 }
            return whole * factor + (Int(fraction) ?? 0)
        }
    }
}
