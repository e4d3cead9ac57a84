import Hummingbird
import SoukCore
import SoukStore

/// `GET /media/<sha256>.png`: an app's icon, screenshot or one of their resized variants. The URL
/// names the bytes, so the answer never changes and may be cached for a year. Only blobs that some
/// app's media names are served — never a package file or any other blob of the store.
struct MediaController<Context: RequestContext> {
    let catalog: CatalogStore
    let blobs: BlobStore
    let fileIO = FileIO()
    /// Whether a digest is some app's media, for one second (as every cache in front of the catalog).
    let named = ShortLivedCache<String, Bool>(capacity: 10_000)

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(":file", use: image)
        group.head(":file", use: image)
    }

    /// The PNG, with an ETag (its digest), answering `304` to a matching `If-None-Match`.
    @Sendable func image(_ request: Request, context: Context) async throws -> Response {
        let file = try context.parameters.require("file")
        let sha256 = String(file.dropLast(4))
        // With an object store, a blob this machine has not seen yet is fetched (`PNGBlob`).
        guard file.hasSuffix(".png"), Digest.isSHA256Hex(sha256), try await isMedia(sha256), blobs.remote != nil || blobs.contains(sha256) else {
            throw Problem(.notFound, "No such image.")
        }
        return try await PNGBlob.response(sha256, cacheControl: "public, max-age=31536000, immutable", request: request, context: context,
                                          blobs: blobs, fileIO: fileIO)
    }

    private func isMedia(_ sha256: String) async throws -> Bool {
        try await named.value(for: sha256) { try await catalog.isMediaBlob(sha256) } ?? false
    }
}

/// A PNG in the blob store as a response: its digest as the ETag (`304` to a matching
/// `If-None-Match`), `HEAD` with the length only, the bytes streamed from the file otherwise.
enum PNGBlob {
    static func response(_ sha256: String, cacheControl: String, request: Request, context: some RequestContext, blobs: BlobStore,
                         fileIO: FileIO) async throws -> Response {
        let etag = "\"\(sha256)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl, .contentType: "image/png"]
        if let ifNoneMatch = request.headers[.ifNoneMatch], ifNoneMatch.contains(etag) || ifNoneMatch == "*" {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        let body = try await fileIO.loadFile(path: try await blobs.localPath(for: sha256), context: context)
        if request.method == .head {
            headers[.contentLength] = body.contentLength.map(String.init)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
