import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The query of `GET /api/v1/apps` and of the device facts every catalog read takes:
/// `query`, `category` (a slug of `GET /api/v1/categories`), `page` (from 1), `pageSize`
/// (1…100, default 50: the storefront's page), and `platform` with `osVersion` (both or neither:
/// with them, `access` says `unavailable`/`incompatible-device` for an app the device cannot run).
/// Anything malformed is a `400` problem, never a silent default.
struct APIListQuery: Sendable {
    static var defaultPageSize: Int { 50 }
    static var maxPageSize: Int { 100 }

    var query = ""
    var category: AppCategory?
    var page = 1
    var pageSize = APIListQuery.defaultPageSize
    var platform: Platform?
    var osVersion: OSVersion?

    init(_ request: Request, list: Bool) throws {
        let parameters = request.uri.queryParameters
        (platform, osVersion) = try Self.device(request)
        guard list else { return }
        query = String((parameters.get("query") ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
        if let slug = parameters.get("category"), !slug.isEmpty {
            guard let category = AppCategory(slug: slug) else {
                throw Problem(.badRequest, "There is no category \"\(slug)\"; GET /api/v1/categories lists them.")
            }
            self.category = category
        }
        if let text = parameters.get("page") {
            guard let number = Int(text), number >= 1 else { throw Problem(.badRequest, "page is a whole number from 1.") }
            page = number
        }
        if let text = parameters.get("pageSize") {
            guard let size = Int(text), (1...Self.maxPageSize).contains(size) else {
                throw Problem(.badRequest, "pageSize is a whole number from 1 to \(Self.maxPageSize).")
            }
            pageSize = size
        }
    }

    /// `platform` and `osVersion`, both or neither.
    static func device(_ request: Request) throws -> (Platform?, OSVersion?) {
        let parameters = request.uri.queryParameters
        let platformText = parameters.get("platform"), osText = parameters.get("osVersion")
        guard platformText != nil || osText != nil else { return (nil, nil) }
        guard let platformText, let platform = Platform(rawValue: platformText), let osText, let osVersion = OSVersion(osText) else {
            throw Problem(.badRequest, "Give platform and osVersion together (platform=iOS&osVersion=17.4).")
        }
        return (platform, osVersion)
    }

    /// The ids of one page of `ids`, and the URL of the next page (nil on the last).
    func page(of ids: [UInt64], publicURL: String) -> (ids: ArraySlice<UInt64>, next: String?) {
        let start = min(ids.count, ProductLists.offset(page: page, size: pageSize))
        let end = min(ids.count, start + pageSize)
        guard end < ids.count else { return (ids[start..<end], nil) }
        var items: [URLQueryItem] = []
        if !query.isEmpty { items.append(URLQueryItem(name: "query", value: query)) }
        if let category { items.append(URLQueryItem(name: "category", value: category.slug)) }
        items.append(URLQueryItem(name: "page", value: String(page + 1)))
        if pageSize != Self.defaultPageSize { items.append(URLQueryItem(name: "pageSize", value: String(pageSize))) }
        if let platform, let osVersion {
            items.append(URLQueryItem(name: "platform", value: platform.rawValue))
            items.append(URLQueryItem(name: "osVersion", value: osVersion.description))
        }
        var components = URLComponents()
        components.queryItems = items
        return (ids[start..<end], "\(publicURL)/api/v1/apps\(components.string ?? "")")
    }
}
