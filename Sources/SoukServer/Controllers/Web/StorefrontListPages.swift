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
        let featured = listed.featured.map(Self.card)
        // Apps without a version yet sort last in `newest`: they are not "new and updated".
        let newest = listed.newest.prefix(Self.newestCount).compactMap { listed.apps[$0] }.filter { $0.latestRelease != nil }.map(Self.card)
        let categories = Self.categoryChips(listed)
        return pages.response(.home, [
            "title": "Apps", "marketplace": try await marketplaceName(), "total": listed.count, "hasApps": listed.count > 0,
            "featured": featured, "hasFeatured": !featured.isEmpty, "newest": newest, "hasNewest": !newest.isEmpty,
            "categories": categories, "hasCategories": !categories.isEmpty,
        ])
    }

    /// `GET /apps?page=N`: every available app by name, 50 a page.
    @Sendable func allApps(_ request: Request, context: Context) async throws -> Response {
        let listed = try await storefront.catalog()
        let page = try Self.page(request, total: listed.byName.count)
        var values = try await listValues(listed, ids: listed.byName, page: page, path: "/apps", query: [])
        values["title"] = page.number > 1 ? "All apps, page \(page.number)" : "All apps"
        values["heading"] = "All apps"
        values["summary"] = Self.countText(listed.count)
        let categories = Self.categoryChips(listed)
        values["categories"] = categories
        values["hasCategories"] = !categories.isEmpty
        return pages.response(.catalog, values)
    }

    /// `GET /categories/<slug>?page=N`: a category's apps by name; 404 for a slug not on the list.
    @Sendable func category(_ request: Request, context: Context) async throws -> Response {
        guard let category = AppCategory(slug: try context.parameters.require("slug")) else {
            throw Problem(.notFound, "There is no such category.")
        }
        let listed = try await storefront.catalog()
        let ids = listed.byCategory[category.slug] ?? []
        let page = try Self.page(request, total: ids.count)
        var values = try await listValues(listed, ids: ids, page: page, path: "/categories/\(category.slug)", query: [])
        values["title"] = page.number > 1 ? "\(category.displayName), page \(page.number)" : category.displayName
        values["heading"] = category.displayName
        values["summary"] = Self.countText(ids.count)
        return pages.response(.catalog, values)
    }

    /// `GET /search?q=…&page=N`: ranked matches (`StorefrontCatalog.search`); no query: a hint.
    @Sendable func search(_ request: Request, context: Context) async throws -> Response {
        let query = String((request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
        let listed = try await storefront.catalog()
        let ids = query.isEmpty ? [] : listed.search(query)
        let page = try Self.page(request, total: ids.count)
        var values = try await listValues(listed, ids: ids, page: page, path: "/search", query: [("q", query)])
        values["query"] = query
        values["hasQuery"] = !query.isEmpty
        values["title"] = query.isEmpty ? "Search" : "Search: \(query)"
        values["heading"] = query.isEmpty ? "Search" : "Results for “\(query)”"
        values["summary"] = ids.count == 1 ? "1 app matches." : "\(ids.count) apps match."
        return pages.response(.search, values)
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

    /// The values every list page shares: its cards and its pager.
    private func listValues(_ listed: StorefrontCatalog, ids: [UInt64], page: Page, path: String,
                            query: [(String, String)]) async throws -> [String: Any] {
        let apps = ids[page.range].compactMap { listed.apps[$0] }.map(Self.card)
        var values: [String: Any] = ["marketplace": try await marketplaceName(), "apps": apps, "hasApps": !apps.isEmpty]
        if page.count > 1 {
            func link(_ number: Int) -> String {
                var items = query.map { URLQueryItem(name: $0.0, value: $0.1) }
                if number > 1 { items.append(URLQueryItem(name: "page", value: String(number))) }
                var components = URLComponents()
                components.path = path
                components.queryItems = items.isEmpty ? nil : items
                return components.string ?? path
            }
            var pager: [String: Any] = ["page": page.number, "pages": page.count]
            if page.number > 1 { pager["previous"] = link(page.number - 1) }
            if page.number < page.count { pager["next"] = link(page.number + 1) }
            values["pager"] = pager
        }
        return values
    }

    /// One app's card: name, developer (or subtitle), price, icon.
    static func card(_ app: StorefrontApp) -> [String: Any] {
        var card: [String: Any] = [
            "name": app.name, "url": "/apps/\(app.appleItemId)", "price": app.pricing.isFree ? "Free" : app.pricing.summary,
        ]
        let meta = app.developer.isEmpty ? app.subtitle : app.developer
        if !meta.isEmpty { card["meta"] = meta }
        card["icon"] = iconImage(app.appleItemId, iconSHA256: app.iconSHA256, media: AppMedia.decode(app.mediaJSON), display: 64)
        return card
    }

    /// The categories that have apps, by display name, as chips.
    static func categoryChips(_ listed: StorefrontCatalog) -> [[String: Any]] {
        let counts = listed.categoryCounts
        return AppCategory.allCases.filter { counts[$0.slug] != nil }.map { category in
            ["name": category.displayName, "url": "/categories/\(category.slug)", "count": counts[category.slug] ?? 0]
        }
    }

    static func countText(_ count: Int) -> String {
        count == 1 ? "1 app" : "\(count) apps"
    }
}
