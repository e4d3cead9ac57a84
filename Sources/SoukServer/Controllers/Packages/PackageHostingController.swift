import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// Serves imported packages as a directory at `/packages/<appleItemId>/<appleVersionId>/`:
/// `manifest.json`, `signature`, `variant/…`, `delta/…`, with `HEAD`, single byte ranges, `ETag`
/// (the blob's SHA-256), `If-None-Match`, `If-Modified-Since`, `If-Range` and `Last-Modified`.
/// Files stream from the blob store in fixed-size chunks, so memory stays flat for any file size;
/// small files (manifests, signatures) are kept in memory, which is safe because blobs never change.
///
/// Clients append `manifest.json` to the package URL with or without a slash, so the bare base URL
/// (with or without its trailing slash) and `<appleVersionId>manifest.json` answer with the manifest too.
struct PackageHostingController<Context: RequestContext> {
    let files: HostedFileCache
    let blobs: BlobStore
    let metrics: SoukMetrics
    let delivery: DownloadDelivery
    let fileIO = FileIO()
    let smallBlobs = SmallBlobCache()

    /// Measured with scripts/check-download-memory.sh: 256 KiB chunks grew the server by ~9 MB during
    /// a 1 GiB download, 128 KiB by ~3 MB, 64 KiB by ~4 MB at ~25% more CPU per MiB served.
    static var chunkSize: Int { 128 * 1024 }
    static var manifestSuffix: String { PackagePath.manifest }

    func addRoutes(to group: RouterGroup<Context>) {
        for method in [HTTPRequest.Method.get, .head] {
            group.on(":appleItemId/:appleVersionId", method: method, use: base)
            group.on(":appleItemId/:appleVersionId/**", method: method, use: file)
        }
    }

    /// `GET /packages/<item>/<version>[/]` and `GET /packages/<item>/<version>manifest.json`: the manifest.
    @Sendable func base(_ request: Request, context: Context) async throws -> Response {
        var versionText = try context.parameters.require("appleVersionId")
        if versionText.hasSuffix(Self.manifestSuffix) { versionText.removeLast(Self.manifestSuffix.count) }
        return try await serve(request, context: context, versionText: versionText, path: PackagePath.manifest)
    }

    /// `GET /packages/<item>/<version>/<path inside the package>`.
    @Sendable func file(_ request: Request, context: Context) async throws -> Response {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        return try await serve(request, context: context, versionText: try context.parameters.require("appleVersionId"),
                               path: path.isEmpty ? PackagePath.manifest : path)
    }

    private func serve(_ request: Request, context: Context, versionText: String, path: String) async throws -> Response {
        // Package paths never need escapes: refusing `%` closes encoded slashes and dots for good.
        guard !request.uri.path.contains("%"), PackagePath.isSafeRelative(path) else {
            throw Problem(.badRequest, "Package paths are plain relative paths: no '..', no escapes, no backslashes.")
        }
        guard let appleItemId = AppleID.parse(try context.parameters.require("appleItemId")),
              let appleVersionId = AppleID.parse(versionText),
              let file = try await files.find(appleItemId: appleItemId, appleVersionId: appleVersionId, path: path) else {
            throw Problem(.notFound, "No such package file.")
        }
        let answer = try FileAnswer(request, size: file.size, etag: "\"\(file.blobSHA256)\"", lastModified: file.lastModified,
                                    contentType: file.contentType, cacheControl: "public, max-age=300")
        if let handOff = delivery.handOff(answer, sha256: file.blobSHA256, method: request.method) { return handOff }
        guard answer.status != .notModified, request.method == .get, let range = answer.range else { return answer.bodiless }
        let (status, headers, length) = (answer.status, answer.headers, answer.length)
        let counter = metrics.packageBytes
        if file.size <= smallBlobs.maxFileSize {
            let whole = try smallBlobs.bytes(sha256: file.blobSHA256, path: blobs.path(for: file.blobSHA256))
            let slice = whole.getSlice(at: Int(range.lowerBound), length: Int(length)) ?? ByteBuffer()
            counter.increment(by: Int64(slice.readableBytes))
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: slice))
        }
        let source = try await fileIO.loadFile(path: blobs.path(for: file.blobSHA256),
                                               range: Int(range.lowerBound)...Int(range.upperBound),
                                               context: context, chunkLength: Self.chunkSize)
        let body = ResponseBody(contentLength: Int(length)) { writer in
            try await source.write(CountingBodyWriter(base: writer, counter: counter))
        }
        return Response(status: status, headers: headers, body: body)
    }
}

/// 416 with the `Content-Range: bytes */<size>` that tells the client the real size.
struct RangeNotSatisfiable: HTTPResponseError {
    let size: Int64
    var status: HTTPResponse.Status { .rangeNotSatisfiable }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = ProblemMiddleware<BasicRequestContext>.response(
            Problem(.rangeNotSatisfiable, "The range starts beyond the end of the file (\(size) bytes)."),
            request: request, id: context.id)
        response.headers[.contentRange] = "bytes */\(size)"
        return response
    }
}
