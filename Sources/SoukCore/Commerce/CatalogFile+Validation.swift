import Foundation

extension CatalogFile {
    /// At most this many promoted in-app purchases per app (StoreKit's “In-App Purchasing” guide).
    public static let maximumPromoted = 20
    /// The renewal periods an auto-renewable subscription may have (spec §1, App Store Connect's choices).
    public static let subscriptionPeriods: [ISODuration] = [
        ISODuration(weeks: 1), ISODuration(months: 1), ISODuration(months: 2), ISODuration(months: 3),
        ISODuration(months: 6), ISODuration(years: 1),
    ]

    /// A product or entitlement id (spec §1): letters, digits, `-`, `.`, `_`, 1 to 100 characters.
    public static func isValidProductId(_ id: String) -> Bool {
        (1...100).contains(id.utf8.count) && id.utf8.allSatisfy(isIdentifierByte)
    }

    /// An app's bundle id / package name as it appears in `/commerce/<app>/`.
    public static func isValidAppId(_ app: String) -> Bool {
        (1...255).contains(app.utf8.count) && app.utf8.allSatisfy(isIdentifierByte) && app != "." && app != ".."
    }

    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// Checks every rule a catalog must meet on its own (what it must meet against the catalog
    /// already applied — retired ids — is `CatalogDiff.between`). The first broken rule is thrown,
    /// naming its path as the file would.
    public static func validate(_ catalog: CommerceCatalog) throws(CatalogFileError) {
        guard isValidAppId(catalog.app) else {
            throw CatalogFileError(path: "app", message: "must be a bundle id or package name (letters, digits, '-', '.', '_'; at most 255)")
        }
        var entitlementIds: [String: Int] = [:]
        for (index, entitlement) in catalog.entitlements.enumerated() {
            let path = "entitlements[\(index)]"
            guard isValidProductId(entitlement.id) else {
                throw CatalogFileError(path: "\(path).id", message: "must be 1 to 100 letters, digits, '-', '.' or '_'")
            }
            if let first = entitlementIds[entitlement.id] {
                throw CatalogFileError(path: "\(path).id", message: "\"\(entitlement.id)\" is already entitlements[\(first)]")
            }
            entitlementIds[entitlement.id] = index
            guard !entitlement.title.isEmpty else { throw CatalogFileError(path: "\(path).title", message: "must not be empty") }
        }
        var productIds: [String: Int] = [:]
        var skus: [CommerceStore: [String: Int]] = [:]
        var promotedOrders: [Int: Int] = [:]
        for (index, product) in catalog.products.enumerated() {
            let path = "products[\(index)]"
            if let first = productIds[product.id] {
                throw CatalogFileError(path: "\(path).id", message: "\"\(product.id)\" is already products[\(first)]")
            }
            productIds[product.id] = index
            try validate(product, path: path, entitlements: entitlementIds)
            for (store, sku) in product.skus.sorted(by: { $0.key < $1.key }) {
                if let first = skus[store]?[sku] {
                    throw CatalogFileError(path: "\(path).skus.\(store.rawValue)", message: "\"\(sku)\" is already the \(store.rawValue) SKU of products[\(first)]")
                }
                skus[store, default: [:]][sku] = index
            }
            if let promoted = product.promoted {
                if let first = promotedOrders[promoted.order] {
                    throw CatalogFileError(path: "\(path).promoted.order", message: "\(promoted.order) is already the order of products[\(first)]")
                }
                promotedOrders[promoted.order] = index
                if promotedOrders.count > maximumPromoted {
                    throw CatalogFileError(path: "\(path).promoted", message: "at most \(maximumPromoted) products of an app may be promoted; this is number \(promotedOrders.count)")
                }
            }
        }
    }

    /// The rules of one product on its own.
    static func validate(_ product: ProductDefinition, path: String, entitlements: [String: Int]) throws(CatalogFileError) {
        guard isValidProductId(product.id) else {
            throw CatalogFileError(path: "\(path).id", message: "must be 1 to 100 letters, digits, '-', '.' or '_'")
        }
        let type = product.type.rawValue
        func forbidden(_ key: String) -> CatalogFileError {
            CatalogFileError(path: "\(path).\(key)", message: "not allowed for a \(type) product")
        }
        func required(_ key: String) -> CatalogFileError {
            CatalogFileError(path: "\(path).\(key)", message: "is required for a \(type) product")
        }
        switch product.type {
        case .autoRenewable:
            guard let group = product.group else { throw required("group") }
            guard !group.isEmpty else { throw CatalogFileError(path: "\(path).group", message: "must not be empty") }
            guard let level = product.level else { throw required("level") }
            guard level >= 1 else { throw CatalogFileError(path: "\(path).level", message: "must be 1 or more (1 is the highest level)") }
            guard let period = product.period else { throw required("period") }
            guard subscriptionPeriods.contains(period) else {
                throw CatalogFileError(path: "\(path).period", message: "\(period) is not one of \(subscriptionPeriods.map(\.description).joined(separator: ", "))")
            }
            if product.duration != nil { throw forbidden("duration") }
        case .nonRenewing:
            guard let duration = product.duration else { throw required("duration") }
            guard duration != ISODuration() else { throw CatalogFileError(path: "\(path).duration", message: "must not be empty") }
            if product.group != nil { throw forbidden("group") }
            if product.level != nil { throw forbidden("level") }
            if product.period != nil { throw forbidden("period") }
        case .consumable, .nonConsumable:
            if product.group != nil { throw forbidden("group") }
            if product.level != nil { throw forbidden("level") }
            if product.period != nil { throw forbidden("period") }
            if product.duration != nil { throw forbidden("duration") }
        }
        if product.type != .autoRenewable, product.introductoryOffer != nil { throw forbidden("introductoryOffer") }
        if product.type != .autoRenewable, !product.offers.isEmpty { throw forbidden("offers") }
        var offerIds: [String: Int] = [:]
        for (index, offer) in product.offers.enumerated() {
            let offerPath = "\(path).offers[\(index)].id"
            guard isValidProductId(offer.id) else {
                throw CatalogFileError(path: offerPath, message: "must be the offer identifier of App Store Connect: 1 to 100 letters, digits, '-', '.' or '_'")
            }
            if let first = offerIds[offer.id] {
                throw CatalogFileError(path: offerPath, message: "\"\(offer.id)\" is already offers[\(first)]")
            }
            offerIds[offer.id] = index
        }
        if product.familyShareable, product.type == .consumable || product.type == .nonRenewing {
            throw CatalogFileError(path: "\(path).familyShareable", message: "a \(type) product cannot be family-shareable")
        }
        for (key, texts) in [("title", product.title), ("description", product.description)] {
            for (locale, text) in texts.sorted(by: { $0.key < $1.key }) {
                guard isValidLocale(locale) else {
                    throw CatalogFileError(path: "\(path).\(key).\(locale)", message: "is not a locale identifier such as en-US")
                }
                if key == "title", text.isEmpty { throw CatalogFileError(path: "\(path).title.\(locale)", message: "must not be empty") }
            }
        }
        try validate(product.prices, path: "\(path).prices")
        if let offer = product.introductoryOffer {
            try validate(offer, path: "\(path).introductoryOffer")
        }
        for (store, sku) in product.skus.sorted(by: { $0.key < $1.key }) {
            guard (1...255).contains(sku.utf8.count), sku.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
                throw CatalogFileError(path: "\(path).skus.\(store.rawValue)", message: "must be 1 to 255 characters without spaces")
            }
        }
        if product.type == .consumable, !product.entitlements.isEmpty {
            throw CatalogFileError(path: "\(path).entitlements", message: "a consumable grants no entitlements (it is a balance)")
        }
        var granted: Set<String> = []
        for (index, entitlement) in product.entitlements.enumerated() {
            guard entitlements[entitlement] != nil else {
                throw CatalogFileError(path: "\(path).entitlements[\(index)]", message: "\"\(entitlement)\" is not one of the catalog's entitlements")
            }
            guard granted.insert(entitlement).inserted else {
                throw CatalogFileError(path: "\(path).entitlements[\(index)]", message: "\"\(entitlement)\" is listed twice")
            }
        }
        if let promoted = product.promoted, promoted.order < 0 {
            throw CatalogFileError(path: "\(path).promoted.order", message: "must be 0 or more")
        }
    }

    static func validate(_ prices: [Price], path: String) throws(CatalogFileError) {
        var currencies: [String: Int] = [:]
        for (index, price) in prices.enumerated() {
            guard ISO4217.isCurrency(price.currency) else {
                throw CatalogFileError(path: "\(path)[\(index)].currency", message: "\"\(price.currency)\" is not an ISO 4217 currency code such as USD")
            }
            guard price.amount >= 0 else {
                throw CatalogFileError(path: "\(path)[\(index)].amount", message: "must be 0 or more (minor units, e.g. 499 for 4.99)")
            }
            if let first = currencies[price.currency] {
                throw CatalogFileError(path: "\(path)[\(index)].currency", message: "\(price.currency) already has a price at [\(first)]")
            }
            currencies[price.currency] = index
        }
    }

    static func validate(_ offer: IntroductoryOffer, path: String) throws(CatalogFileError) {
        switch offer.mode {
        case .freeTrial:
            guard offer.prices.isEmpty else { throw CatalogFileError(path: "\(path).prices", message: "a free trial has no prices") }
            guard offer.periods == 1 else { throw CatalogFileError(path: "\(path).periods", message: "a free trial lasts one period") }
        case .payUpFront:
            guard !offer.prices.isEmpty else { throw CatalogFileError(path: "\(path).prices", message: "is required for pay-up-front") }
            guard offer.periods == 1 else { throw CatalogFileError(path: "\(path).periods", message: "pay-up-front is paid once for one period") }
        case .payAsYouGo:
            guard !offer.prices.isEmpty else { throw CatalogFileError(path: "\(path).prices", message: "is required for pay-as-you-go") }
            guard (1...12).contains(offer.periods) else { throw CatalogFileError(path: "\(path).periods", message: "must be 1 to 12") }
        }
        try validate(offer.prices, path: "\(path).prices")
    }

    /// `en`, `en-US`, `zh-Hans`, `pt_BR`: letters, digits, `-` or `_`, starting with a letter.
    static func isValidLocale(_ locale: String) -> Bool {
        guard let first = locale.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII, locale.utf8.count <= 35 else { return false }
        return locale.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }
}
