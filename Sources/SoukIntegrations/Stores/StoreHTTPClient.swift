import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import SoukCore

/// A store's answer to one call: status and body (at most 1 MiB).
public struct StoreResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as JSON, or nil.
    public var json: JSONValue? { try? JSONValue.parse(body) }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One call to a store, made again on what is not an answer: a timeout, a
/// connection error, a 5xx or a 429 is retried after `StoreRetryPolicy.delay` (a 429's
/// `Retry-After` is honoured up to the policy's `max`); after the last attempt the call throws
/// `StoreFault` (`unavailable` or `rateLimited`). Every other status is an answer and is returned
/// for the store's client to read (401/403/4xx included).
///
/// `label` names the call in faults and logs (`GET purchases.products`); the URL is never part of a
/// fault, since stores put secrets in paths (Amazon's shared secret, Roku's API key).
public struct StoreHTTPClient: Sendable {
    let http: HTTPClient
    let retry: StoreRetryPolicy

    public init(http: HTTPClient = .shared, retry: StoreRetryPolicy = StoreRetryPolicy()) {
        self.http = http
        self.retry = retry
    }

    public func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                     label: String) async throws(StoreFault) -> StoreResponse {
        var lastFault = StoreFault(.unavailable, "\(label): no attempt was made")
        var lastRetryAfter: Duration?
        for attempt in 1...max(1, retry.attempts) {
            if attempt > 1 {
                var wait = retry.delay(beforeRetry: attempt - 1)
                if lastFault.kind == .rateLimited, let asked = lastRetryAfter, asked > wait { wait = min(asked, retry.max) }
                do { try await Task.sleep(for: wait) } catch { throw StoreFault(.unavailable, "\(label): cancelled") }
            }
            lastRetryAfter = nil
            do {
                let response = try await once(method, url, headers: headers, body: body)
                switch response.status {
                case 429:
                    lastFault = StoreFault(.rateLimited, "\(label): the store answered 429 (too many requests)")
                    if let seconds = response.header("Retry-After").flatMap(Int.init) { lastRetryAfter = .seconds(seconds) }
                case 500...599:
                    lastFault = StoreFault(.unavailable, "\(label): the store answered \(response.status)")
                default:
                    return response
                }
            } catch {
                if Task.isCancelled { throw StoreFault(.unavailable, "\(label): cancelled") }
                lastFault = StoreFault(.unavailable, "\(label): \(Self.describe(error))")
            }
        }
        throw lastFault
    }

    func once(_ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]?) async throws -> StoreResponse {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let timeout = TimeAmount.nanoseconds(Int64(retry.requestTimeout.components.seconds) * 1_000_000_000
                                             + Int64(retry.requestTimeout.components.attoseconds / 1_000_000_000))
        let response = try await http.execute(request, timeout: timeout)
        let collected = try await response.body.collect(upTo: 1 << 20)
        return StoreResponse(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                             body: Array(buffer: collected))
    }

    /// An error said without its URL (stores and webhook receivers put secrets in URLs).
    public static func describe(_ error: any Error) -> String {
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "timed out"
            case .remoteConnectionClosed: return "the connection was closed"
            default: return "the request failed (\(client))"
            }
        }
        if "\(type(of: error))".contains("Connect") { return "cannot connect" }
        return "the request failed (\(type(of: error)))"
    }
}
