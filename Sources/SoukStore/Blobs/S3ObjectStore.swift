import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SoukCore

/// Blobs in an S3-compatible object store (`blobStore = s3`): path-style URLs
/// (`<endpoint>/<bucket>/sha256/ab/<digest>`), signed with AWS Signature Version 4 over
/// AsyncHTTPClient. The bucket is the operator's; Souk only puts, heads, gets and presigns.
///
/// Uploads carry the blob's SHA-256 as `x-amz-content-sha256`, so the store checks the bytes it
/// received against the digest Souk computed; a blob already there is not sent again.
public struct S3ObjectStore: Sendable {
    public struct Settings: Sendable, Equatable {
        public var endpoint: String
        public var bucket: String
        public var region: String
        public var accessKeyId: String
        public var secretAccessKey: String

        public init(endpoint: String, bucket: String, region: String, accessKeyId: String, secretAccessKey: String) {
            self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
            self.bucket = bucket
            self.region = region
            self.accessKeyId = accessKeyId
            self.secretAccessKey = secretAccessKey
        }
    }

    public let settings: Settings
    let signer: AWSSignatureV4
    let http: HTTPClient
    /// How long one call may take before it counts as an outage (an upload gets more, by size).
    static let timeout: TimeAmount = .seconds(30)

    /// The process's client for object stores (never shut down, like `HTTPClient.shared`). A refused
    /// connection fails at once instead of being retried until the request's deadline (minutes, for
    /// a large upload), and a store that stops sending for a minute counts as down: either way the
    /// caller answers 503 promptly.
    public static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(60)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init(settings: Settings, http: HTTPClient = S3ObjectStore.client) {
        self.settings = settings
        self.signer = AWSSignatureV4(accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, region: settings.region)
        self.http = http
    }

    func url(_ key: String) -> URL {
        URL(string: "\(settings.endpoint)/\(settings.bucket)/\(key)")!
    }

    /// Whether the object exists (`HEAD`: 200 yes, 404 no; anything else is an outage).
    public func exists(_ key: String, now: Date = Date()) async throws -> Bool {
        let response = try await send("HEAD", key, payloadSHA256: AWSSignatureV4.emptyPayloadSHA256, now: now)
        switch response.status.code {
        case 200: return true
        case 404: return false
        default: throw ObjectStoreUnavailable("HEAD \(key) answered \(response.status.code)")
        }
    }

    /// Uploads the file at `path` as `key`, streamed in 1 MiB chunks.
    public func put(fileAt path: String, key: String, sha256: String, size: Int64, now: Date = Date()) async throws {
        let chunks = FileChunks(path: path)
        let seconds = 30 + Int64(size / (4 << 20))  // at least 4 MiB/s, or it counts as an outage
        let response = try await send("PUT", key, payloadSHA256: sha256, body: .stream(chunks, length: .known(size)),
                                      headers: ["content-type": "application/octet-stream"], timeout: .seconds(seconds), now: now)
        guard response.status.code == 200 else {
            let detail = String(buffer: try await response.body.collect(upTo: 64 << 10))
            throw ObjectStoreUnavailable("PUT \(key) answered \(response.status.code): \(Self.errorCode(detail))")
        }
    }

    /// Downloads `key` into the file at `path` (created; removed again on failure).
    public func get(_ key: String, to path: String, now: Date = Date()) async throws {
        let response = try await send("GET", key, payloadSHA256: AWSSignatureV4.emptyPayloadSHA256, timeout: .seconds(600), now: now)
        guard response.status.code == 200 else {
            throw ObjectStoreUnavailable("GET \(key) answered \(response.status.code)")
        }
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw BlobError.unwritable(path)
        }
        do {
            for try await buffer in response.body {
                try handle.write(contentsOf: Data(buffer: buffer))
            }
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error is ObjectStoreUnavailable ? error : ObjectStoreUnavailable("GET \(key) broke off: \(error)")
        }
    }

    /// A presigned `GET` of `key`, valid for `seconds` (at most an hour), answering with these headers.
    public func presignedGET(_ key: String, seconds: Int, contentType: String?, contentDisposition: String?, now: Date = Date()) -> String {
        var query: [String: String] = [:]
        if let contentType { query["response-content-type"] = contentType }
        if let contentDisposition { query["response-content-disposition"] = contentDisposition }
        return signer.presignedGET(url: url(key), expires: min(max(seconds, 1), 3600), query: query, date: now).absoluteString
    }

    private func send(_ method: String, _ key: String, payloadSHA256: String, body: HTTPClientRequest.Body? = nil,
                      headers extra: [String: String] = [:], timeout: TimeAmount = Self.timeout, now: Date) async throws -> HTTPClientResponse {
        let target = url(key)
        var request = HTTPClientRequest(url: target.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        for (name, value) in signer.signedHeaders(method: method, url: target, payloadSHA256: payloadSHA256, headers: extra, date: now) {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        if let body { request.body = body }
        do {
            let response = try await http.execute(request, timeout: timeout)
            if response.status.code >= 500 || response.status.code == 429 || response.status.code == 403 || response.status.code == 401 {
                // The store is down, throttling, or refuses our keys: none of it says anything about the blob.
                let detail = String(buffer: (try? await response.body.collect(upTo: 64 << 10)) ?? ByteBuffer())
                throw ObjectStoreUnavailable("\(method) \(key) answered \(response.status.code) \(Self.errorCode(detail))")
            }
            return response
        } catch let error as ObjectStoreUnavailable {
            throw error
        } catch {
            throw ObjectStoreUnavailable("\(method) \(key) failed: \(error)")
        }
    }

    /// The `<Code>` of an S3 error document, if any.
    static func errorCode(_ body: String) -> String {
        guard let start = body.range(of: "<Code>"), let end = body.range(of: "</Code>", range: start.upperBound..<body.endIndex) else {
            return ""
        }
        return String(body[start.upperBound..<end.lowerBound].prefix(100))
    }
}

/// The object store could not answer (down, too slow, refusing the keys): a 503 and a retry, never
/// a verdict on the blob.
public struct ObjectStoreUnavailable: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = "object store unavailable: " + description }
}

/// A file as 1 MiB buffers, read on the blocking pool.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        let path: String

        mutating func next() async throws -> ByteBuffer? {
            guard let handle else { throw BlobError.unreadable(path) }
            let data = try await BlockingWork.run { try handle.read(upToCount: 1 << 20) ?? Data() }
            if data.isEmpty {
                try? handle.close()
                return nil
            }
            return ByteBuffer(data: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: FileHandle(forReadingAtPath: path), path: path) }
}
