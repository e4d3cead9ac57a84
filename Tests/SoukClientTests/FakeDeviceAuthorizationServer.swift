import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization

/// An OAuth server speaking RFC 8628's wire format: `POST /oauth/device_authorization` answers
/// codes, `POST /oauth/token` answers the staged `polls` in order (an RFC 6749 §5.2 error name, or
/// `nil` for the token pair), and every form body is recorded.
final class FakeDeviceAuthorizationServer: Sendable {
    static let deviceCode = "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS"
    static let accessToken = "sat_device-granted"
    private let state: Mutex<(polls: [String?], forms: [[String: String]])>
    private let interval: Int?

    init(polls: [String?], interval: Int? = 5) {
        state = Mutex((polls, []))
        self.interval = interval
    }

    /// The form bodies received, in order.
    var forms: [[String: String]] { state.withLock { $0.forms } }

    func run(_ test: @escaping @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        router.post("/oauth/device_authorization") { request, context -> Response in
            let form = try await self.record(request)
            guard form["client_id"] == "tv-app" else { return Self.json(.badRequest, ["error": "invalid_client"]) }
            var answer: [String: Any] = [
                "device_code": Self.deviceCode, "user_code": "WDJB-MJHT", "verification_uri": "https://souk.test/device",
                "verification_uri_complete": "https://souk.test/device?user_code=WDJB-MJHT", "expires_in": 60,
            ]
            if let interval = self.interval { answer["interval"] = interval }
            return Self.json(.ok, answer)
        }
        router.post("/oauth/token") { request, context -> Response in
            _ = try await self.record(request)
            let next: String?? = self.state.withLock { $0.polls.isEmpty ? .some("expired_token") : .some($0.polls.removeFirst()) }
            if let error = next ?? nil { return Self.json(.badRequest, ["error": error]) }
            return Self.json(.ok, ["access_token": Self.accessToken, "token_type": "Bearer", "expires_in": 3600,
                                   "refresh_token": "srt_device-granted", "scope": "commerce"])
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            try await test(URL(string: "http://127.0.0.1:\(client.port!)")!)
        }
    }

    private func record(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 4096)
        var form: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            form[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        form["content-type"] = request.headers[.contentType]
        state.withLock { $0.forms.append(form) }
        return form
    }

    private static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
