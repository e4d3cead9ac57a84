import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A request a fake store received (for assertions: the path, the headers, the body).
public struct RecordedStoreRequest: Sendable {
    public var method: String
    public var path: String
    public var query: String
    public var headers: [String: String]
    public var body: [UInt8]
    /// When the fake read the request: a receiver checks a signature's age against this, not
    /// against the test's later clock.
    public var receivedAt = Date()

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// What a fake store does instead of answering: fail the next requests, answer slowly, be down.
/// Shared by the fakes of every store (Google, Amazon, Roku, the App Store Server API, webhook
/// receivers), so each test can stage an outage and its recovery.
public final class StoreFaults: Sendable {
    struct State {
        var failNext: [Int] = []
        var delayNext: [Duration] = []
        var down: Int?
        var requests: [RecordedStoreRequest] = []
    }

    let state = Mutex(State())

    public init() {}

    /// The next `count` requests answer `status` (503, 500, 429…) without reaching the store's routes.
    public func failNext(_ count: Int, status: Int = 503) {
        state.withLock { $0.failNext += Array(repeating: status, count: count) }
    }

    /// The next `count` requests are answered after `delay`.
    public func delayNext(_ count: Int, by delay: Duration) {
        state.withLock { $0.delayNext += Array(repeating: delay, count: count) }
    }

    /// Every request answers `status` until `recover()`.
    public func down(status: Int = 503) { state.withLock { $0.down = status } }
    public func recover() { state.withLock { $0.down = nil; $0.failNext = []; $0.delayNext = [] } }

    /// Every request received so far, faulted ones included.
    public var requests: [RecordedStoreRequest] { state.withLock { $0.requests } }
    public func requests(matching path: String) -> [RecordedStoreRequest] { requests.filter { $0.path.contains(path) } }

    func next(_ request: RecordedStoreRequest) -> (status: Int?, delay: Duration?) {
        state.withLock { state in
            state.requests.append(request)
            let delay = state.delayNext.isEmpty ? nil : state.delayNext.removeFirst()
            if let down = state.down { return (down, delay) }
            let status = state.failNext.isEmpty ? nil : state.failNext.removeFirst()
            return (status, delay)
        }
    }
}

/// Records every request and applies the staged faults before the fake's routes see it.
struct StoreFaultMiddleware<Context: RequestContext>: RouterMiddleware {
    let faults: StoreFaults

    func handle(_ input: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = input
        let body = try await request.collectBody(upTo: 4 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let recorded = RecordedStoreRequest(method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                                            headers: headers, body: Array(buffer: body))
        let (status, delay) = faults.next(recorded)
        if let delay { try await Task.sleep(for: delay) }
        if let status {
            return Response(status: .init(code: status), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error": "staged fault \#(status)"}"#)))
        }
        return try await next(request, context)
    }
}

/// A fake store on 127.0.0.1 (a free port) for the duration of `body`, which receives its base URL
/// (`http://127.0.0.1:<port>`). `routes` adds the store's documented paths.
public enum FakeStoreServer {
    public static func run(faults: StoreFaults = StoreFaults(), routes: (Router<BasicRequestContext>) -> Void,
                           _ body: @escaping @Sendable (_ baseURL: String) async throws -> Void) async throws {
        let router = Router()
        router.add(middleware: StoreFaultMiddleware(faults: faults))
        routes(router)
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            guard let port = client.port else { throw FakeStoreError("the fake store has no port") }
            try await body("http://127.0.0.1:\(port)")
        }
    }

    /// A JSON answer.
    public static func json(_ status: HTTPResponse.Status = .ok, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A JSON answer of a JSON-serializable value.
    public static func json(_ status: HTTPResponse.Status = .ok, object: Any) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

public struct FakeStoreError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
