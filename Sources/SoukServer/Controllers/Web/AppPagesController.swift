import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore
import Synchronization

/// The storefront: `/` (featured, new and updated, categories), `/apps` and `/categories/<slug>`
/// (paginated lists), `/search?q=` (`StorefrontListPages.swift`), the app page
/// `/apps/<appleItemId>` (the `appShareURL`, with schema.org `MobileApplication` JSON-LD for
/// Spotlight), the Install and Buy buttons (POSTs: a fresh `marketplace-kit://install` link for the
/// signed-in person, or an order) and `/sitemap.xml`. The lists answer from `StorefrontIndex`, held
/// in memory and kept current from the catalog change log, so no page scans the catalog.
struct AppPagesController<Context: WebSessionRequestContext> {
    let catalog: CatalogStore
    let sessions: WebSessionStore
    let pages: Pages
    let storefront: StorefrontIndex
    /// The in-memory catalog the payment verdict reads.
    let catalogIndex: CatalogIndex
    let commerceCatalogs: CommerceCatalogCache
    let payments: AppPayments
    let checkout: CheckoutService
    let installLinks: InstallLinks
    let marketplaceName: @Sendable () async throws -> String
    /// The server's public address (`base` of the JSON-LD and sitemap URLs).
    let base: String
    /// `paymentProcessor`: `none` sells only to sandbox accounts.
    let paymentProcessor: String
    /// Where Stripe's checkout is, which the Buy form's redirect must be allowed to reach.
    let stripeCheckoutOrigin: String?
    /// The sitemap's paths at the catalog revision they were built from.
    let sitemapCache = SitemapCache()

    init(runtime: SoukRuntime, sessions: WebSessionStore, pages: Pages, storefront: StorefrontIndex) {
        catalog = runtime.catalog
        self.sessions = sessions
        self.pages = pages
        self.storefront = storefront
        catalogIndex = runtime.catalogIndex
        commerceCatalogs = runtime.commerceCatalogs
        payments = AppPayments(runtime: runtime)
        checkout = CheckoutService(runtime: runtime)
        installLinks = InstallLinks(runtime: runtime)
        let catalog = runtime.catalog, keys = runtime.keys
        marketplaceName = { try await catalog.marketplaceName(keys: keys) }
        base = runtime.config.publicURL
        paymentProcessor = runtime.config.commerce.paymentProcessor
        stripeCheckoutOrigin = runtime.config.commerce.stripeCheckoutOrigin
    }

    func addRoutes(to router: Router<Context>) {
        router.get("/", use: home)
        router.get("apps", use: allApps)
        router.get("search", use: search)
        router.get("categories/:slug", use: category)
        router.get("apps/:appleItemId", use: appPage)
        let signedIn = router.group("apps/:appleItemId").add(middleware: WebSessionMiddleware(sessions: sessions))
        signedIn.post("install", use: install)
        signedIn.post("buy", use: buy)
        router.get("sitemap.xml", use: sitemap)
        router.get("sitemaps/{page}.xml", use: sitemapPage)
        router.get("favicon.ico", use: favicon)
    }

    /// `GET /apps/<appleItemId>`: the app page (`appShareURL`).
    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let app = try await availableApp(context)
        let versions = try await catalog.versions(of: app)
        let session = try await sessions.session(for: request)
        let pricing = app.pricing
        let media = app.media
        let path = "/apps/\(app.appleItemId)"
        let latest = versions.first
        var size: String?
        if let latest, let bytes = try await downloadSize(latest) { size = Self.byteCount(bytes) }
        var icon = Self.iconImage(app.appleItemId, iconSHA256: app.iconSHA256, media: media, display: 128)
        icon?.alt = "\(app.name) icon"
        icon?.class = "icon"
        icon?.width = 128
        icon?.height = 128
        // Mustache shows a section for an empty string: what the app does not have is nil.
        var page = StorefrontAppPageValues(
            name: app.name, subtitle: app.subtitle.isEmpty ? nil : app.subtitle,
            developer: app.developerName.isEmpty ? nil : app.developerName,
            priceLabel: pricing.isFree ? "Free" : pricing.summary, icon: icon,
            screenshots: Self.screenshotGroups(media, appName: app.name), description: Self.paragraphs(app.appDescription),
            whatsNew: Self.paragraphs(app.whatsNew ?? ""), latestVersion: latest?.shortVersionString,
            size: size,
            category: app.appCategory.map { .init(name: $0.displayName, url: "/categories/\($0.slug)") },
            compatibility: latest.map { Self.compatibility($0.minimumOS) } ?? [],
            products: try await inAppProducts(bundleId: app.bundleId),
            versions: versions.map { version in
                let requirements = Self.compatibility(version.minimumOS).joined(separator: ", ")
                return .init(shortVersion: version.shortVersionString, bundleVersion: version.bundleVersion,
                             released: Self.day(version.releaseDate), requirements: requirements.isEmpty ? nil : requirements)
            },
            jsonLD: try Self.jsonLD(app: app, latest: latest, pageURL: "\(base)\(path)", base: base),
            signedIn: session != nil, csrfToken: session?.csrfToken ?? "", installAction: "\(path)/install",
            signInURL: SignInReturn.signInURL(returningTo: path, query: nil))
        // Signed in: Install when the person may have it, else Buy (or the membership that includes it).
        // With paymentProcessor none nothing is sold to a production account: the page says so instead.
        let notForSaleYet = "\(app.name) is not for sale yet: this marketplace does not take payments."
        if let session {
            switch try await verdict(app, account: session.account) {
            case .open:
                page.canInstall = true
            case _ where !pricing.prices.isEmpty && !sells(to: session.account):
                page.paymentNote = notForSaleYet
            case let verdict where !pricing.prices.isEmpty:
                page.buyAction = "\(path)/buy"
                page.buyLabel = "Buy for \(pricing.price(in: nil)?.formatted ?? "")"
                if verdict == .subscriptionExpired { page.paymentNote = PaymentRule.description(verdict, pricing: pricing) }
            case let verdict:
                page.paymentNote = PaymentRule.description(verdict, pricing: pricing)
            }
        } else if !pricing.prices.isEmpty && !sells(to: nil) {
            page.paymentNote = notForSaleYet
        }
        // Stripe's checkout is another origin: the Buy form's redirect must be allowed to go there.
        let targets: ContentSecurityPolicy.FormTargets = page.buyAction != nil
            ? stripeCheckoutOrigin.map { .soukThenPayment($0) } ?? .souk : .souk
        return try await render(.app, title: app.name, page: page, formTargets: targets)
    }

    /// The Install button: a fresh link for the signed-in person, shown for a tap (never redirected to).
    @Sendable func install(_ request: Request, context: Context) async throws -> Response {
        let app = try await availableApp(context)
        let session = try context.requireWebSession()
        _ = try await sessions.checkedForm(request, session: session, context: context)
        // An app not paid for gets no install link: the device would only meet a 402.
        guard try await verdict(app, account: session.account) == .open else { return WebPage.seeOther("/apps/\(app.appleItemId)") }
        let link = try await installLinks.make(appleItemId: app.appleItemId, email: session.account.email)
        return pages.response(.install, InstallPageValues(title: "Install \(app.name)", marketplace: try await marketplaceName(),
                                                          name: app.name, link: link.url, appURL: "/apps/\(app.appleItemId)"))
    }

    /// The Buy button: an order for the signed-in person through the checkout of `POST
    /// /api/v1/checkout`, and the browser sent where it is paid (the development processor pays at
    /// once and sends it back here, where Install now shows; a server that takes no payments sends
    /// it back to the page, which says the app is not for sale yet).
    @Sendable func buy(_ request: Request, context: Context) async throws -> Response {
        let app = try await availableApp(context)
        let session = try context.requireWebSession()
        _ = try await sessions.checkedForm(request, session: session, context: context)
        let page = "/apps/\(app.appleItemId)"
        do {
            switch try await checkout.checkout(appleItemId: app.appleItemId, currency: nil, buyer: session.account) {
            case .order(let order): return WebPage.seeOther(order.url ?? page)
            case .alreadyOwned, .planHeld, .notForSale, .subscription, .paymentsNotConfigured: return WebPage.seeOther(page)
            }
        } catch is StoreFault {
            return pages.response(.error, ErrorPageValues(
                title: "Payment unavailable", marketplace: try await marketplaceName(),
                message: "The payment service cannot be reached right now; nothing was charged. Try again shortly."), status: .serviceUnavailable)
        }
    }

    /// Whether this server sells to `account` (nil: a visitor who is not signed in): always to a
    /// sandbox account (the development processor), else unless `paymentProcessor` is `none`.
    private func sells(to account: AccountRecord?) -> Bool {
        account?.sandbox == true || paymentProcessor != "none"
    }

    /// The payment verdict on `app` for a signed-in person (`PaymentRule` through `AppPayments`).
    private func verdict(_ app: AppRecord, account: AccountRecord) async throws -> PaymentVerdict {
        guard !app.pricing.isFree, let indexed = try await catalogIndex.apps([app.appleItemId])[app.appleItemId] else { return .open }
        return try await payments.verdict(indexed, account: account)
    }

    /// URLs per sitemap file (the protocol allows 50,000; smaller files are quicker to make and fetch).
    static var sitemapPageSize: Int { 10_000 }

    /// `GET /sitemap.xml`: the home page, every category with apps and every app page, for
    /// Spotlight — one `urlset` while they fit in one file, else a `sitemapindex` of
    /// `/sitemaps/<n>.xml` files of `sitemapPageSize` URLs each (sitemaps.org).
    @Sendable func sitemap(_ request: Request, context: Context) async throws -> Response {
        let paths = try await sitemapPaths()
        guard paths.count > Self.sitemapPageSize else { return Self.xmlResponse(Self.urlset(paths, base: base)) }
        let pages = (paths.count + Self.sitemapPageSize - 1) / Self.sitemapPageSize
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        let escapedBase = Self.xmlEscape(base)
        for page in 1...pages { xml += "  <sitemap><loc>\(escapedBase)/sitemaps/\(page).xml</loc></sitemap>\n" }
        return Self.xmlResponse(xml + "</sitemapindex>\n")
    }

    /// `GET /sitemaps/<n>.xml`: the n-th `sitemapPageSize` URLs of the sitemap (from 1).
    @Sendable func sitemapPage(_ request: Request, context: Context) async throws -> Response {
        let paths = try await sitemapPaths()
        guard let page = context.parameters.get("page").flatMap({ Int($0) }), page >= 1,
              ProductLists.offset(page: page, size: Self.sitemapPageSize) < paths.count, paths.count > Self.sitemapPageSize else {
            throw Problem(.notFound, "No such sitemap.")
        }
        let start = ProductLists.offset(page: page, size: Self.sitemapPageSize)
        return Self.xmlResponse(Self.urlset(Array(paths[start..<min(paths.count, start + Self.sitemapPageSize)]), base: base))
    }

    /// Every sitemap path, built once per catalog revision (100,000 apps make 100,000 strings).
    private func sitemapPaths() async throws -> [String] {
        let (listed, revision) = try await storefront.catalogAtRevision()
        if let revision, let cached = sitemapCache.paths(at: revision) { return cached }
        let paths = ["/"] + AppCategory.allCases.filter { listed.byCategory[$0.slug]?.isEmpty == false }.map { "/categories/\($0.slug)" }
            + listed.byName.map { "/apps/\($0)" }
        if let revision { sitemapCache.store(paths, at: revision) }
        return paths
    }

    /// A `urlset` of `paths` (Souk's own paths: letters, digits, `/` and `-`, so only the base is escaped).
    static func urlset(_ paths: [String], base: String) -> String {
        let escapedBase = xmlEscape(base)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        xml.reserveCapacity(paths.count * (escapedBase.utf8.count + 40))
        for path in paths { xml += "  <url><loc>\(escapedBase)\(path)</loc></url>\n" }
        return xml + "</urlset>\n"
    }

    static func xmlResponse(_ xml: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/xml; charset=utf-8", .cacheControl: "public, max-age=300"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }

    /// `GET /favicon.ico`: browsers ask every site for one; Souk has none to show, and says so
    /// without an error (a 404 would be a console error on every page with an image).
    @Sendable func favicon(_ request: Request, context: Context) async throws -> Response {
        Response(status: .noContent, headers: [.cacheControl: "public, max-age=86400"])
    }

    // MARK: Helpers

    private func availableApp(_ context: Context) async throws -> AppRecord {
        let unavailable = Problem(.notFound, "This app is not available.")
        guard let id = AppleID.parse(try context.parameters.require("appleItemId")) else { throw unavailable }
        // Only "no such app" is a 404: a database that cannot answer is an outage (503), never a verdict.
        let app: AppRecord
        do {
            app = try await catalog.appRecord(appleItemId: id)
        } catch CatalogError.notFound {
            throw unavailable
        }
        guard app.availability == .available else { throw unavailable }
        return app
    }


    /// schema.org `MobileApplication` for Spotlight (spec §8), safe inside `<script>`.
    static func jsonLD(app: AppRecord, latest: AppVersionRecord?, pageURL: String, base: String) throws -> String {
        var properties: [[String: Any]] = [["@type": "PropertyValue", "name": "com.apple.alternativeDistribution.search.appleItemId",
                                            "value": String(app.appleItemId)]]
        if let latest {
            properties.append(["@type": "PropertyValue", "name": "com.apple.alternativeDistribution.search.appleVersionId",
                               "value": String(latest.appleVersionId)])
        }
        var object: [String: Any] = [
            "@context": "https://schema.org", "@type": "MobileApplication", "name": app.name, "url": pageURL,
            "operatingSystem": "iOS", "applicationCategory": "MobileApplication", "description": app.appDescription,
            "supportingData": ["@type": "DataFeed", "dataFeedElement": properties],
        ]
        if !app.developerName.isEmpty { object["author"] = ["@type": "Organization", "name": app.developerName] }
        if let latest {
            object["softwareVersion"] = latest.shortVersionString
            object["datePublished"] = day(latest.releaseDate)
        }
        if let icon = app.media?.icon {
            object["image"] = base + icon.url()
        } else if app.iconSHA256 != nil {
            object["image"] = "\(base)/apps/\(app.appleItemId)/icon"
        }
        if let category = app.appCategory { object["applicationCategory"] = category.displayName }
        let screenshots = app.media?.screenshots.map { base + $0.image.url() } ?? []
        if !screenshots.isEmpty { object["screenshot"] = screenshots }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
                          as: UTF8.self)
        return json.replacingOccurrences(of: "&", with: "\\u0026").replacingOccurrences(of: "<", with: "\\u003c")
            .replacingOccurrences(of: ">", with: "\\u003e")
    }

    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash))
    }

    static func xmlEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    // MARK: App page facts

    /// The download size of the latest version: its largest variant (the package tables' `variant/…` files).
    private func downloadSize(_ version: AppVersionRecord) async throws -> Int64? {
        try await catalog.files(of: version).filter { $0.path.hasPrefix("variant/") }.map(\.size).max()
    }

    /// The app's in-app products on sale, with their prices, from its commerce catalog (the app's bundle id).
    private func inAppProducts(bundleId: String) async throws -> [StorefrontAppPageValues.Product] {
        guard let state = try await commerceCatalogs.state(app: bundleId) else { return [] }
        return state.catalog.products.map { product in
            let title = product.title["en-US"] ?? product.title["en"] ?? product.title.sorted { $0.key < $1.key }.first?.value ?? product.id
            var price = product.prices.map(\.formatted).joined(separator: ", ")
            if price.isEmpty { price = "Free" }
            if let period = product.period { price += " every \(Self.period(period))" }
            return .init(title: title, kind: Self.kind(product.type), price: price)
        }
    }

    static func kind(_ type: ProductType) -> String {
        switch type {
        case .consumable: "Consumable"
        case .nonConsumable: "One-time purchase"
        case .autoRenewable: "Subscription"
        case .nonRenewing: "Pass"
        }
    }

    /// `P1M` → "month", `P3M` → "3 months".
    static func period(_ duration: ISODuration) -> String {
        let parts: [(Int, String)] = [(duration.years, "year"), (duration.months, "month"), (duration.weeks, "week"), (duration.days, "day")]
        let named = parts.filter { $0.0 > 0 }.map { $0.0 == 1 ? $0.1 : "\($0.0) \($0.1)s" }
        return named.isEmpty ? duration.description : named.joined(separator: " ")
    }

    /// "Requires iOS 17.4 or later", one line per platform.
    static func compatibility(_ minimumOS: [String: String]) -> [String] {
        minimumOS.sorted { $0.key < $1.key }.map { "Requires \(platformName($0.key)) \($0.value) or later" }
    }

    static func platformName(_ platform: String) -> String {
        switch platform {
        case "ios": "iOS"
        case "ipados": "iPadOS"
        case "macos": "macOS"
        case "visionos": "visionOS"
        case "watchos": "watchOS"
        case "tvos": "tvOS"
        default: platform
        }
    }

    /// "48.2 MB" (decimal units, as the App Store shows sizes).
    static func byteCount(_ bytes: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        if unit == 0 { return "\(bytes) bytes" }
        return String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
    }

    /// Text split at blank lines into paragraphs (single line breaks kept as spaces).
    static func paragraphs(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
            .map { $0.split(separator: "\n").joined(separator: " ").trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// An icon for the `image` partial: `src` at twice `display` pixels, with `srcset` when the
    /// media has variants; the app's plain icon route when it has only `icon_sha256`.
    static func iconImage(_ appleItemId: UInt64, iconSHA256: String?, media: AppMedia?, display: Int) -> ImageValues? {
        if let icon = media?.icon {
            return ImageValues(src: icon.url(for: display * 2), srcset: icon.srcset(), sizes: "\(display)px")
        }
        return iconSHA256 == nil ? nil : ImageValues(src: "/apps/\(appleItemId)/icon")
    }

    /// Screenshots per device family (iPhone, then iPad), each with its `srcset`.
    static func screenshotGroups(_ media: AppMedia?, appName: String) -> [StorefrontAppPageValues.Screenshots] {
        guard let media else { return [] }
        return AppMedia.Family.allCases.compactMap { family in
            let images = media.screenshots(for: family)
            guard !images.isEmpty else { return nil }
            return .init(family: family.displayName, slug: family.rawValue, images: images.enumerated().map { index, image in
                // Shown 400 px high (under the stylesheet's max-height), as wide as the shape gives.
                let height = 400
                let width = image.height > 0 ? max(1, image.width * height / image.height) : height
                return ImageValues(src: image.url(for: width * 2), srcset: image.srcset(), sizes: "\(width)px",
                                   alt: "\(appName) on \(family.displayName), screenshot \(index + 1) of \(images.count)",
                                   width: width, height: height)
            })
        }
    }
}

/// The sitemap's paths, kept for one catalog revision.
final class SitemapCache: Sendable {
    private let entry = Mutex<(revision: Int64, paths: [String])?>(nil)

    func paths(at revision: Int64) -> [String]? {
        entry.withLock { $0?.revision == revision ? $0?.paths : nil }
    }

    func store(_ paths: [String], at revision: Int64) {
        entry.withLock { $0 = (revision, paths) }
    }
}
