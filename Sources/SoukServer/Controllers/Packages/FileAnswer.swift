import Foundation
import HTTPTypes
import Hummingbird
import SoukCore

/// The status, headers and byte range of an answer with a stored file (package files, hosted
/// content): `ETag` and `Last-Modified` validators, `304`, `Range` / `If-Range` (`206`, `416`),
/// `Accept-Ranges` — the same for every file Souk serves (`FileRequestConditions` decides).
struct FileAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// The bytes to send; nil for a `304` or an empty file.
    var range: ClosedRange<Int64>?

    /// - Throws: `RangeNotSatisfiable` (416) for a range outside the file.
    init(_ request: Request, size: Int64, etag: String, lastModified: Int64, contentType: String, contentDisposition: String? = nil,
         cacheControl: String) throws {
        headers = [.acceptRanges: "bytes", .eTag: etag, .lastModified: HTTPDate.format(lastModified), .contentType: contentType,
                   .cacheControl: cacheControl]
        headers[.contentDisposition] = contentDisposition
        let conditions = FileRequestConditions(ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince],
                                               range: request.headers[.range], ifRange: request.headers[.ifRange])
        switch conditions.plan(size: size, etag: etag, lastModified: lastModified) {
        case .notModified:
            headers[.contentType] = nil
            status = .notModified
            range = nil
            return
        case .unsatisfiable:
            throw RangeNotSatisfiable(size: size)
        case .full:
            status = .ok
            range = size > 0 ? 0...(size - 1) : nil
        case .partial(let bounds):
            status = .partialContent
            range = bounds
            headers[.contentRange] = "bytes \(bounds.lowerBound)-\(bounds.upperBound)/\(size)"
        }
        headers[.contentLength] = String(length)
    }

    var length: Int64 { range.map { $0.upperBound - $0.lowerBound + 1 } ?? 0 }

    /// The answer without a body: a `304`, a `HEAD`, an empty file.
    var bodiless: Response { Response(status: status, headers: headers, body: ResponseBody()) }
}
