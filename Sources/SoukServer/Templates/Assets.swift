import Crypto
import Foundation
import Hummingbird
import HTTPTypes

/// One static file of the web pages (the stylesheet, the few scripts), served by Souk itself — never
/// from a CDN — at a content-addressed path (`/assets/souk.<first 12 hex of its SHA-256>.css`), so it
/// is cached for a year and a new build's file is a new URL.
struct Asset: Sendable {
    let path: String
    let contentType: String
    let body: String
    let etag: String

    init(stem: String, ext: String, contentType: String, body: String) {
        let digest = SHA256.hash(data: Data(body.utf8)).map { String(format: "%02x", $0) }.joined()
        self.path = "/assets/\(stem).\(digest.prefix(12)).\(ext)"
        self.contentType = contentType
        self.body = body
        self.etag = "\"\(digest)\""
    }
}

/// The web pages' static files. Templates name them through `Assets.css.path` (and so on): the
/// layout is built with the path in it.
enum Assets {
    static let css = Asset(stem: "souk", ext: "css", contentType: "text/css; charset=utf-8", body: WebStyles.css)

    /// Every asset, by path. Other files add theirs here (e.g. the console's scripts).
    static let all: [String: Asset] = Dictionary(uniqueKeysWithValues: ([css] + WebScripts.all).map { ($0.path, $0) })
}

/// `GET /assets/<file>`: an asset, immutable for a year (its name changes with its bytes).
struct AssetsController<Context: RequestContext> {
    func addRoutes(to router: Router<Context>) {
        router.get("assets/:file") { request, context -> Response in
            guard let file = context.parameters.get("file"), let asset = Assets.all["/assets/" + file] else {
                throw HTTPError(.notFound)
            }
            var headers: HTTPFields = [
                .contentType: asset.contentType, .cacheControl: "public, max-age=31536000, immutable", .eTag: asset.etag,
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ]
            if request.headers[.ifNoneMatch] == asset.etag {
                headers[.contentType] = nil
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentLength] = String(asset.body.utf8.count)
            let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: asset.body))
            return Response(status: .ok, headers: headers, body: body)
        }
    }
}
