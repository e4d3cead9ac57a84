import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The storefront's lists: the home page, all apps, a category and search. Each reads the
/// in-memory `StorefrontCatalog` (no catalog query per request) and renders at most one page of
/// cards, so a page costs the same at 100,000 apps as at ten.
extension AppPagesController {
    /// Cards per page of `/apps`, a category and search.
    static var pageSize: Int { 50 }
    /// How many apps "New and updated" shows on the home page.
    static var newestCount: Int { 12 }

    /// `GET /`: featured apps, new and updated, the categories that have apps.
    @Sendable func home(_ request: Request, context: Context) async throws -> Response {
        let listed = try await storefront.catalog()
        // Apps without a version yet sort last in `newest`: they are not "new and updated".
        let newest = listed.newest.prefix(Self.newestCount).compactMap { listed.apps[$0] }.filter { $0.latestRelease != nil }.map(Self.card)
        let page = HomePageValues(total: listed.count, hasApps: listed.count > 0, featured: listed.featured.map(Self.card),
                                  newest: newest, categories: Self.categoryChips(listed))
        return try await render(.home, title: "Apps", page: page)
    }

    /// `GET /apps?page=N`: every available app by name, 50 a page.
    @Sendable func allApps(_ request: Request, context: Context) async throws -> Response {
        let listed = try await storefront.catalog()
        let page = try Self.page(request, total: listed.byName.count)
        var values = list(listed, ids: listed.byName, page: page, path: "/apps", query: [], heading: "All apps",
                          summary: Self.countText(listed.count))
        values.categories = Self.categoryChips(listed)
        return try await render(.catalog, title: page.number > 1 ? "All apps, page \(page.number)" : "All apps", page: values)
    }

    /// `GET /categories/<slug>?page=N`: a category's apps by name; 404 for a slug not on the list.
    @Sendable func category(_ request: Request, context: Context) async throws -> Response {
        guard let category = AppCategory(slug: try context.parameters.require("slug")) else {
            throw Problem(.notFound, "There is no such category.")
        }
        let listed = try await storefront.catalog()
        let ids = listed.byCategory[category.slug] ?? []
        let page = try Self.page(request, total: ids.count)
        let values = list(listed, ids: ids, page: page, path: "/categories/\(category.slug)", query: [], heading: category.displayName,
                          summary: Self.countText(ids.count))
        return try await render(.catalog, title: page.number > 1 ? "\(category.displayName), page \(page.number)" : category.displayName,
                                page: values)
    }

    /// `GET /search?q=…&page=N`: ranked matches (`StorefrontCatalog.search`); no query: a hint.
    @Sendable func search(_ request: Request, context: Context) async throws -> Response {
        let query = String((request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
        let listed = try await storefront.catalog()
        let ids = query.isEmpty ? [] : listed.search(query)
        let page = try Self.page(request, total: ids.count)
        var values = list(listed, ids: ids, page: page, path: "/search", query: [("q", query)],
                          heading: query.isEmpty ? "Search" : "Results for “\(query)”",
                          summary: ids.count == 1 ? "1 app matches." : "\(ids.count) apps match.")
        // An empty query is no value: Mustache opens a section for an empty string.
        values.query = query.isEmpty ? nil : query
        return try await render(.search, title: query.isEmpty ? "Search" : "Search: \(query)", page: values)
    }

    /// A storefront page with the layout's title and the marketplace's name.
    func render<Page: Sendable>(_ template: PageTemplate, title: String, page: Page,
                                formTargets: ContentSecurityPolicy.FormTargets = .souk) async throws -> Response {
        pages.response(template, PageContext(layout: PublicLayout(title: title, marketplace: try await marketplaceName()), page: page),
                       formTargets: formTargets)
    }

    // MARK: Lists

    struct Page {
        var number: Int
        var count: Int
        var range: Range<Int>
    }

    /// The page `?page=` asks for (1 when absent); a page that is not a positive number or lies
    /// past the end is a 404 (an empty list has one, empty, page).
    static func page(_ request: Request, total: Int) throws -> Page {
        let notFound = Problem(.notFound, "There is no such page.")
        var number = 1
        if let text = request.uri.queryParameters.get("page") {
            guard let parsed = Int(text), parsed >= 1 else { throw notFound }
            number = parsed
        }
        let count = max(1, (total + pageSize - 1) / pageSize)
        guard number <= count else { throw notFound }
        let start = (number - 1) * pageSize
        return Page(number: number, count: count, range: start..<min(total, start + pageSize))
    }

    /// A list page's cards and its pager.
    private func list(_ listed: StorefrontCatalog, ids: [UInt64], page: Page, path: String, query: [(String, String)],
                      heading: String, summary: String) -> AppListPageValues {
        let apps = ids[page.range].compactMap { listed.apps[$0] }.map(Self.card)
        var pager: PagerValues?
        if page.count > 1 {
            func link(_ number: Int) -> String {
                var items = query.map { URLQueryItem(name: $0.0, value: $0.1) }
                if number > 1 { items.append(URLQueryItem(name: "page", value: String(number))) }
                var components = URLComponents()
                components.path = path
                components.queryItems = items.isEmpty ? nil : items
                return components.string ?? path
            }
            pager = PagerValues(page: page.number, pages: page.count, previous: page.number > 1 ? link(page.number - 1) : nil,
                                next: page.number < page.count ? link(page.number + 1) : nil)
        }
        return AppListPageValues(heading: heading, summary: summary, apps: apps, pager: pager)
    }

    /// One app's card: name, developer (or subtitle), price, icon.
    static func card(_ app: StorefrontApp) -> AppCardValues {
        let meta = app.developer.isEmpty ? app.subtitle : app.developer
        return AppCardValues(name: app.name, url: "/apps/\(app.appleItemId)", price: app.pricing.isFree ? "Free" : app.pricing.summary,
                             meta: meta.isEmpty ? nil : meta,
                             icon: iconImage(app.appleItemId, iconSHA256: app.iconSHA256, media: AppMedia.decode(app.mediaJSON), display: 64))
    }

    /// The categories that have apps, by display name, as chips.
    static func categoryChips(_ listed: StorefrontCatalog) -> [CategoryChipValues] {
        let counts = listed.categoryCounts
        return AppCategory.allCases.filter { counts[$0.slug] != nil }.map { category in
            CategoryChipValues(name: category.displayName, url: "/categories/\(category.slug)", count: counts[category.slug] ?? 0)
        }
    }

    static func countText(_ count: Int) -> String {
        count == 1 ? "1 app" : "\(count) apps"
    }
}
