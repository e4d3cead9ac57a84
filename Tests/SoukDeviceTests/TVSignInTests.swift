import Foundation
import Hummingbird
import HummingbirdTesting
@testable import SoukDevice
import Synchronization
import Testing

/// An authorization server's device grant as RFC 8628 describes it (§3.2 the authorization
/// response, §3.5 the token endpoint's errors as RFC 6749 §5.2 JSON with status 400), answering
/// each poll from a script: what a TV meets.
final class ScriptedDeviceGrant: Sendable {
    /// Token-endpoint answers in order: an `error` code, `"tokens"`, or `"503"`.
    let script: Mutex<[String]>
    let polls = Mutex<[String]>([])

    init(_ script: [String]) {
        self.script = Mutex(script)
    }

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.post("device_authorization") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 4096))
            guard body.contains("client_id=tv-client") else { return Self.json(.badRequest, #"{"error": "invalid_client"}"#) }
            return Self.json(.ok, #"""
                {"device_code": "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS", "user_code": "WDJB-MJHT",
                 "verification_uri": "https://example.com/device", "verification_uri_complete": "https://example.com/device?user_code=WDJB-MJHT",
                 "expires_in": 1800, "interval": 5}
                """#)
        }
        router.post("token") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 4096))
            self.polls.withLock { $0.append(body) }
            let next = self.script.withLock { $0.isEmpty ? "expired_token" : $0.removeFirst() }
            switch next {
            case "tokens":
                return Self.json(.ok, #"{"access_token": "sat_tv", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "srt_tv"}"#)
            case "503": return Self.json(.serviceUnavailable, #"{"type": "about:blank", "status": 503}"#)
            default: return Self.json(.badRequest, #"{"error": "\#(next)"}"#)
            }
        }
        return router
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

@Suite struct TVSignInTests {
    /// Runs the flow against `script`; the tokens or the error, the waits asked for, the polls made.
    static func run(_ script: [String]) async throws -> (Result<DeviceState.Tokens, DeviceError>, [Duration], [String]) {
        let server = ScriptedDeviceGrant(script)
        return try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let waits = Mutex<[Duration]>([])
            let http = DeviceHTTP(verbose: false)
            let flow = TVSignIn(http: http, say: { _ in }, wait: { duration in waits.withLock { $0.append(duration) } })
            let result: Result<DeviceState.Tokens, DeviceError>
            do {
                let authorization = try await flow.authorize(endpoint: base + "/device_authorization", clientId: "tv-client", scope: nil)
                #expect(authorization.userCode == "WDJB-MJHT" && authorization.interval == 5 && authorization.expiresIn == 1800)
                result = .success(try await flow.poll(endpoint: base + "/token", clientId: "tv-client", authorization: authorization))
            } catch let error as DeviceError {
                result = .failure(error)
            }
            await http.shutdown()
            return (result, waits.withLock { $0 }, server.polls.withLock { $0 })
        }
    }

    @Test func pollsWhilePendingSlowsDownWhenAskedAndGetsTheTokens() async throws {
        let (result, waits, polls) = try await Self.run(["authorization_pending", "slow_down", "503", "authorization_pending", "tokens"])
        let tokens = try result.get()
        #expect(tokens.accessToken == "sat_tv" && tokens.refreshToken == "srt_tv")
        // 5 s, then 10 s from the slow_down on; a 503 is polled again, not taken as a refusal.
        #expect(waits == [.seconds(5), .seconds(5), .seconds(10), .seconds(10), .seconds(10)])
        #expect(polls.count == 5)
        #expect(polls.allSatisfy {
            $0.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code")
                && $0.contains("device_code=GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS") && $0.contains("client_id=tv-client")
        })
    }

    @Test func aDenialAndAnExpiredCodeEndTheSignIn() async throws {
        let (denied, _, deniedPolls) = try await Self.run(["authorization_pending", "access_denied", "tokens"])
        #expect(throws: DeviceError.self) { try denied.get() }
        #expect(deniedPolls.count == 2)
        let (expired, _, _) = try await Self.run(["expired_token"])
        guard case .failure(let error) = expired else { Issue.record("an expired code signed in"); return }
        #expect(error.name == .oauthTokenError && error.message.contains("expired_token"))
    }

    @Test func anUnknownErrorIsARefusal() async throws {
        let (result, _, _) = try await Self.run(["invalid_grant"])
        guard case .failure(let error) = result else { Issue.record("an invalid grant signed in"); return }
        #expect(error.message.contains("invalid_grant"))
    }
}
