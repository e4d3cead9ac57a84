import HTTPTypes
import Hummingbird
import SoukApp
import SoukStore

/// Who sends the bytes of an authorized package or hosted-content download (`downloadsVia`).
///
/// Souk always decides *whether* a file may be downloaded (the app is listed, the version not
/// withdrawn, the buyer entitled) and answers `304`s and `416`s itself; with `nginx`, the bytes
/// then come from nginx's `internal` location over `sendfile`, ranges included (docs/deploy.md).
enum DownloadDelivery: Sendable {
    case souk
    /// `X-Accel-Redirect: <prefix><path under the blob folder>`, with an empty body.
    case nginx(prefix: String)
    /// `302` to a presigned `GET` at the object store (`blobStore = s3`), living `seconds`.
    case objectStore(S3ObjectStore, seconds: Int)

    /// How long a presigned download URL lives: long enough to start a download (the store checks
    /// it only then), short enough that a leaked one soon stops working. At most an hour.
    static let presignedSeconds = 900

    init(_ config: SoukConfig, blobs: BlobStore) {
        if let remote = blobs.remote {
            self = .objectStore(remote, seconds: Self.presignedSeconds)
            return
        }
        switch config.downloadsVia {
        case .souk: self = .souk
        case .nginx: self = .nginx(prefix: config.xAccelPrefix)
        }
    }

    /// The hand-off for a blob whose validators `answer` checked, or nil when Souk answers itself
    /// (`souk`; a `304`, which needs no bytes; a `HEAD` with an object store).
    ///
    /// nginx keeps `Content-Type`, `Cache-Control` and `Content-Disposition` from this answer and
    /// works out `Content-Length`, `Content-Range` and `206`/`416` from the file; the internal
    /// location adds Souk's `ETag` back (deploy/nginx/souk.conf), so `If-Range` still matches it.
    /// An object store gets a presigned `GET` that sets the same `Content-Type` and disposition.
    func handOff(_ answer: FileAnswer, sha256: String, method: HTTPRequest.Method) -> Response? {
        guard answer.status != .notModified else { return nil }
        switch self {
        case .souk:
            return nil
        case .objectStore(let store, let seconds):
            // A presigned URL is for one method: Souk answers `HEAD` itself, from what it knows.
            guard method == .get else { return nil }
            let location = store.presignedGET(BlobStore.relativePath(for: sha256), seconds: seconds,
                                              contentType: answer.headers[.contentType], contentDisposition: answer.headers[.contentDisposition])
            return Response(status: .found, headers: [.location: location, .cacheControl: "private, no-store"])
        case .nginx(let prefix):
            return Self.xAccel(answer, sha256: sha256, prefix: prefix)
        }
    }

    private static func xAccel(_ answer: FileAnswer, sha256: String, prefix: String) -> Response {
        var headers = answer.headers
        headers[.contentLength] = nil
        headers[.contentRange] = nil
        headers[.acceptRanges] = nil  // nginx adds its own; nginx cannot drop an upstream copy
        headers[.xAccelRedirect] = prefix + BlobStore.relativePath(for: sha256)
        return Response(status: .ok, headers: headers, body: ResponseBody())
    }
}

extension HTTPField.Name {
    static let xAccelRedirect = Self("X-Accel-Redirect")!
}
