import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The device's HTTP: never follows redirects (iOS does not for the configuration file, and a
/// redirect anywhere in the protocol is worth seeing), and with `verbose` prints every exchange
/// (tokens shortened).
public final class DeviceHTTP: Sendable {
    /// Made on first use, so that a device that sends nothing needs no shutdown.
    private let made = Mutex<HTTPClient?>(nil)
    let verbose: Bool

    var client: HTTPClient {
        made.withLock { made in
            if let made { return made }
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            made = client
            return client
        }
    }

    public struct Answer: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? { headers.first(name: name) }
    }

    public init(verbose: Bool) {
        self.verbose = verbose
    }

    public func shutdown() async {
        let client = made.withLock { made in
            defer { made = nil }
            return made
        }
        try? await client?.shutdown()
    }

    static func redact(_ value: String) -> String {
        value.count > 16 ? String(value.prefix(12)) + "…" : value
    }

    func log(_ text: String) {
        if verbose { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }

    /// One request; the whole body (up to `limit` bytes).
    public func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                     limit: Int = 16 << 20) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        log("→ \(method.rawValue) \(url)" + headers.map { "\n    \($0.0): \($0.0.lowercased() == "authorization" || $0.0.lowercased() == "cookie" ? Self.redact($0.1) : $0.1)" }.joined()
            + (body.map { "\n    " + Self.preview($0) } ?? ""))
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .seconds(60))
            bytes = try await response.body.collect(upTo: limit)
        } catch {
            throw DeviceError(.networkError, "\(method.rawValue) \(url) failed: \(error)")
        }
        let answer = Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer: bytes))
        log("← \(answer.status) " + answer.headers.map { "\n    \($0.name): \($0.name.lowercased() == "set-cookie" ? Self.redact($0.value) : $0.value)" }.joined()
            + "\n    " + Self.preview(answer.body))
        return answer
    }

    static func preview(_ body: [UInt8]) -> String {
        guard !body.isEmpty else { return "(empty)" }
        let text = String(decoding: body.prefix(600), as: UTF8.self)
        return text.unicodeScalars.allSatisfy({ $0.value >= 9 }) ? text + (body.count > 600 ? " …(\(body.count) bytes)" : "") : "(\(body.count) bytes)"
    }

    public func json(_ answer: Answer, _ what: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] else {
            throw DeviceError(.protocolViolation, "\(what) answered \(answer.status) without a JSON object")
        }
        return object
    }

    /// Streams a download into `path`, resuming from what the file already holds with `Range`, never
    /// holding more than one network chunk in memory. `startsAt(offset)` is called once the answer
    /// is known: the file's first `offset` bytes are kept (0 when the server sends it all again);
    /// then `chunk` sees every byte written after them, and `progress(received, total)` follows.
    public func download(_ url: String, to path: String, expectedSize: Int64?, headers: [(String, String)] = [], startsAt: (Int64) throws -> Void,
                         chunk: (UnsafeRawBufferPointer) throws -> Void, progress: (Int64, Int64?) -> Void) async throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw DeviceError(.networkError, "cannot create \(path)") }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw DeviceError(.networkError, "cannot write \(path)") }
        defer { try? handle.close() }
        var have = Int64(try handle.seekToEnd())
        if let expectedSize, have > expectedSize {
            // Longer than the variant can be: not a part of it.
            try handle.truncate(atOffset: 0)
            have = 0
        }
        if let expectedSize, have == expectedSize {
            try startsAt(have)
            progress(have, expectedSize)
            return
        }
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if have > 0 { request.headers.add(name: "Range", value: "bytes=\(have)-") }
        log("→ GET \(url)\(have > 0 ? "\n    Range: bytes=\(have)-" : "")")
        let response = try await client.execute(request, timeout: .hours(2))
        log("← \(response.status.code) " + response.headers.map { "\n    \($0.name): \($0.value)" }.joined())
        var received: Int64
        switch response.status.code {
        case 206 where have > 0:
            guard let range = response.headers.first(name: "content-range"), Self.rangeStart(range) == have else {
                throw DeviceError(.protocolViolation, "GET \(url) answered 206 with Content-Range \(response.headers.first(name: "content-range") ?? "missing") to Range: bytes=\(have)-")
            }
            try handle.seek(toOffset: UInt64(have))
            received = have
        case 200:
            try handle.truncate(atOffset: 0)
            received = 0
        default:
            throw DeviceError(.networkError, "GET \(url) answered \(response.status.code)")
        }
        try startsAt(received)
        for try await buffer in response.body {
            try buffer.withUnsafeReadableBytes { bytes in
                try handle.write(contentsOf: bytes)
                try chunk(bytes)
            }
            received += Int64(buffer.readableBytes)
            progress(received, expectedSize)
        }
    }

    /// The first byte of a `Content-Range: bytes first-last/total` header.
    static func rangeStart(_ header: String) -> Int64? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        return text.dropFirst(6).split(separator: "-").first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}
