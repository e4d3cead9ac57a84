import Hummingbird
import NIOCore

/// `maxBodyBytes`: no request body larger than the setting is read. A declared `Content-Length`
/// over the limit is refused before any byte is read; a chunked body is counted as it arrives and
/// refused at the first byte past the limit. Either way the answer is a `413` problem.
///
/// Console routes (`/admin/…`, and the developer console's `/developer/…`) are left to their own
/// limits: package and media uploads are gigabytes, streamed to disk, with the CSRF check before
/// the first file byte. So is the developer API's package upload, streamed to disk after its key
/// was checked (`DeveloperAPIController`).
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/admin/") || path.hasPrefix("/developer/") || DeveloperAPIController.isPackageUpload(path) {
            return try await next(request, context)
        }
        // (NIO's HTTP parser has already refused a Content-Length that is not a number.)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) {
            guard length <= maxBytes else { throw Self.tooLarge(maxBytes) }
            return try await next(request, context)
        }
        guard request.headers[.transferEncoding] != nil else { return try await next(request, context) }
        var limited = request
        limited.body = RequestBody(asyncSequence: LimitedBody(base: request.body, maxBytes: maxBytes))
        return try await next(limited, context)
    }

    static func tooLarge(_ maxBytes: Int) -> Problem {
        Problem(.contentTooLarge, "The request body is larger than \(maxBytes) bytes.")
    }
}

/// A body that throws the `413` problem once more than `maxBytes` have arrived.
private struct LimitedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let maxBytes: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let maxBytes: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            seen += chunk.readableBytes
            guard seen <= maxBytes else { throw BodyLimitMiddleware<BasicRequestContext>.tooLarge(maxBytes) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), maxBytes: maxBytes) }
}
