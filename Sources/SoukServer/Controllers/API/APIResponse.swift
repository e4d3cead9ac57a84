import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SoukCore

/// How the catalog reads of `/api/v1` answer: the DTO's bytes with a strong `ETag` (a digest of
/// those bytes) and `304` to a matching `If-None-Match`. Every answer says `Vary: Authorization`:
/// the same URL answers differently with a token (`access`). With one the answer is `private,
/// no-cache` (never kept by a shared cache, revalidated every time); without one `public,
/// max-age=60` (what the storefront shows is the same for everybody).
enum APIResponse {
    static func cached(_ value: some Encodable, request: Request, personal: Bool) -> Response {
        let body = WireJSON.encode(value)
        let etag = "\"" + Digest.hex(Array(SHA256.hash(data: body).prefix(16))) + "\""
        var headers: HTTPFields = [.eTag: etag, .vary: "Authorization",
                                   .cacheControl: personal ? "private, no-cache" : "public, max-age=60"]
        if FileRequestConditions(ifNoneMatch: request.headers[.ifNoneMatch]).plan(size: 0, etag: etag, lastModified: 0) == .notModified {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers,
                        body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
