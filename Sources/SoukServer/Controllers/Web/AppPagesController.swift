import Foundation
import Hummingbird
import SoukCore
import SoukIntegrations
import SoukStore

/// The public app pages: `/` and `/apps` (the catalog; the storefront's home), `/apps/<appleItemId>` (the `appShareURL`, with
/// schema.org `MobileApplication` JSON-LD for Spotlight), the Install button (a POST that answers
/// with a fresh `marketplace-kit://install` link for the signed-in person) and `/sitemap.xml`.
struct AppPagesController<Context: RequestContext> {
    let runtime: SoukRuntime
    let sessions: WebSessionStore
    let pages: Pages

    var catalog: CatalogStore { runtime.catalog }
    var base: String { runtime.config.publicURL }

    func addRoutes(to router: Router<Context>) {
        router.get("/", use: catalogPage)
        router.get("apps", use: catalogPage)
        router.get("apps/:appleItemId", use: appPage)
        router.post("apps/:appleItemId/install", use: install)
        router.post("apps/:appleItemId/buy", use: buy)
        router.get("sitemap.xml", use: sitemap)
        router.get("favicon.ico", use: favicon)
    }

    /// `GET /` and `GET /apps`: every available app.
    @Sendable func catalogPage(_ request: Request, context: Context) async throws -> Response {
        let apps = try await catalog.apps().filter { $0.availability == .available }
        return pages.response("catalog", [
            "title": "Apps", "marketplace": try await marketplaceName(),
            "apps": apps.map { ["name": $0.name, "subtitle": $0.subtitle, "developer": $0.developerName, "url": "/apps/\($0.appleItemId)"] },
        ])
    }

    /// `GET /apps/<appleItemId>`: the app page (`appShareURL`).
    @Sendable func appPage(_ request: Request, context: Context) async throws -> Response {
        let app = try await availableApp(context)
        let versions = try await catalog.versions(of: app)
        let session = try await sessions.session(for: request)
        let pricing = app.pricing
        var values: [String: Any] = [
            "title": app.name, "marketplace": try await marketplaceName(), "name": app.name, "subtitle": app.subtitle,
            "developer": app.developerName, "description": app.appDescription,
            "signedIn": session != nil, "csrfToken": session?.csrfToken ?? "", "installAction": "/apps/\(app.appleItemId)/install",
            "versions": versions.map { version in
                ["shortVersion": version.shortVersionString, "bundleVersion": version.bundleVersion,
                 "released": Self.day(version.releaseDate),
                 "requirements": version.minimumOS.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) or later" }.joined(separator: ", ")]
            },
            "jsonLD": try Self.jsonLD(app: app, latest: versions.first, pageURL: "\(base)/apps/\(app.appleItemId)", base: base),
        ]
        if app.iconSHA256 != nil { values["icon"] = "/apps/\(app.appleItemId)/icon" }
        if !pricing.isFree { values["price"] = pricing.summary }
        // Signed in: Install when the person may have it, else Buy (or the membership that includes it).
        if let session {
            switch try await verdict(app, account: session.account) {
            case .open:
                values["canInstall"] = true
            case let verdict where !pricing.prices.isEmpty:
                values["buyAction"] = "/apps/\(app.appleItemId)/buy"
                values["buyLabel"] = "Buy for \(pricing.price(in: nil)?.formatted ?? "")"
                if verdict == .subscriptionExpired { values["paymentNote"] = PaymentRule.description(verdict, pricing: pricing) }
            case let verdict:
                values["paymentNote"] = PaymentRule.description(verdict, pricing: pricing)
            }
        }
        // Stripe's checkout is another origin: the Buy form's redirect must be allowed to go there.
        let targets: ContentSecurityPolicy.FormTargets = values["buyAction"] != nil
            ? runtime.config.commerce.stripeCheckoutOrigin.map { .soukThenPayment($0) } ?? .souk : .souk
        return pages.response("app", values, formTargets: targets)
    }

    /// The Install button: a fresh link for the signed-in person, shown for a tap (never redirected to).
    @Sendable func install(_ request: Request, context: Context) async throws -> Response {
        let app = try await availableApp(context)
        guard let session = try await sessions.session(for: request) else { return WebController<Context>.seeOther("/signin") }
        _ = try await sessions.checkedForm(request, session: session, context: context)
        // An app not paid for gets no install link: the device would only meet a 402.
        guard try await verdict(app, account: session.account) == .open else { return WebController<Context>.seeOther("/apps/\(app.appleItemId)") }
        let link = try await InstallLinks(runtime: runtime).make(appleItemId: app.appleItemId, email: session.account.email)
        return pages.response("install", ["title": "Install \(app.name)", "marketplace": try await marketplaceName(),
                                          "name": app.name, "link": link.url, "appURL": "/apps/\(app.appleItemId)"])
    }

    /// The Buy button: an order for the signed-in person through the checkout of `POST
    /// /api/v1/checkout`, and the browser sent where it is paid (the development processor pays at
    /// once and sends it back here, where Install now shows).
    @Sendable func buy(_ request: Request, context: Context) async throws -> Response {
        let app = try await availableApp(context)
        guard let session = try await sessions.session(for: request) else { return WebController<Context>.seeOther("/signin") }
        _ = try await sessions.checkedForm(request, session: session, context: context)
        let page = "/apps/\(app.appleItemId)"
        do {
            switch try await CheckoutService(runtime: runtime).checkout(appleItemId: app.appleItemId, currency: nil, buyer: session.account) {
            case .order(let order): return WebController<Context>.seeOther(order.url ?? page)
            case .alreadyOwned, .notForSale, .subscription: return WebController<Context>.seeOther(page)
            }
        } catch is StoreFault {
            return pages.response("error", ["title": "Payment unavailable", "marketplace": try await marketplaceName(),
                                            "message": "The payment service cannot be reached right now; nothing was charged. Try again shortly."],
                                  status: .serviceUnavailable)
        }
    }

    /// The payment verdict on `app` for a signed-in person (`PaymentRule` through `AppPayments`).
    private func verdict(_ app: AppModel, account: AccountModel) async throws -> PaymentVerdict {
        guard !app.pricing.isFree, let indexed = try await runtime.catalogIndex.apps([app.appleItemId])[app.appleItemId] else { return .open }
        return try await AppPayments(runtime: runtime).verdict(indexed, account: account)
    }

    /// `GET /sitemap.xml`: every app page, for Spotlight.
    @Sendable func sitemap(_ request: Request, context: Context) async throws -> Response {
        let apps = try await catalog.apps().filter { $0.availability == .available }
        let entries = apps.map { "  <url><loc>\(Self.xmlEscape("\(base)/apps/\($0.appleItemId)"))</loc></url>" }
        let xml = (["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"]
                   + entries + ["</urlset>", ""]).joined(separator: "\n")
        return Response(status: .ok, headers: [.contentType: "application/xml; charset=utf-8", .cacheControl: "public, max-age=300"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }

    /// `GET /favicon.ico`: browsers ask every site for one; Souk has none to show, and says so
    /// without an error (a 404 would be a console error on every page with an image).
    @Sendable func favicon(_ request: Request, context: Context) async throws -> Response {
        Response(status: .noContent, headers: [.cacheControl: "public, max-age=86400"])
    }

    // MARK: Helpers

    private func availableApp(_ context: Context) async throws -> AppModel {
        let unavailable = Problem(.notFound, "This app is not available.")
        guard let id = AppleID.parse(try context.parameters.require("appleItemId")) else { throw unavailable }
        // Only "no such app" is a 404: a database that cannot answer is an outage (503), never a verdict.
        let app: AppModel
        do {
            app = try await catalog.app(appleItemId: id)
        } catch CatalogError.notFound {
            throw unavailable
        }
        guard app.availability == .available else { throw unavailable }
        return app
    }

    private func marketplaceName() async throws -> String {
        try await catalog.marketplaceName(keys: runtime.keys)
    }

    /// schema.org `MobileApplication` for Spotlight (spec §8), safe inside `<script>`.
    static func jsonLD(app: AppModel, latest: AppVersionModel?, pageURL: String, base: String) throws -> String {
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
        if app.iconSHA256 != nil { object["image"] = "\(base)/apps/\(app.appleItemId)/icon" }
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
}
