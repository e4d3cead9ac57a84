import Foundation
import SoukClient
import Synchronization
import Testing

/// Device sign-in (RFC 8628) against a fake authorization server speaking the RFC's wire format.
@Suite struct DeviceSignInTests {
    /// Waits recorded instead of slept.
    final class Waits: Sendable {
        private let waits = Mutex<[Duration]>([])
        var all: [Duration] { waits.withLock { $0 } }
        func sleep(_ duration: Duration) { waits.withLock { $0.append(duration) } }
    }

    static func client(_ url: URL, _ waits: Waits) -> SoukClient {
        SoukClient(serverURL: url, sleep: { waits.sleep($0) })
    }

    @Test func pollsThroughPendingAndSlowDownUntilApproved() async throws {
        let fake = FakeDeviceAuthorizationServer(polls: ["authorization_pending", "slow_down", "authorization_pending", nil])
        try await fake.run { url in
            let waits = Waits()
            let shown = Mutex<DeviceAuthorization?>(nil)
            let tokens = try await Self.client(url, waits).signInWithDevice(clientId: "tv-app", scope: "commerce") { authorization in
                shown.withLock { $0 = authorization }
            }
            #expect(tokens == SoukTokens(accessToken: FakeDeviceAuthorizationServer.accessToken, refreshToken: "srt_device-granted",
                                         expiresIn: 3600, scope: "commerce"))
            let authorization = try #require(shown.withLock { $0 })
            #expect(authorization.userCode == "WDJB-MJHT")
            #expect(authorization.verificationURI.absoluteString == "https://souk.test/device")
            #expect(authorization.verificationURIComplete?.absoluteString == "https://souk.test/device?user_code=WDJB-MJHT")
            // 5 s between polls, 5 s more after slow_down (RFC 8628 §3.5).
            #expect(waits.all == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])

            let forms = fake.forms
            #expect(forms.first == ["client_id": "tv-app", "scope": "commerce", "content-type": "application/x-www-form-urlencoded"])
            #expect(forms.count == 5)
            for poll in forms.dropFirst() {
                #expect(poll == ["grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                                 "device_code": FakeDeviceAuthorizationServer.deviceCode, "client_id": "tv-app",
                                 "content-type": "application/x-www-form-urlencoded"])
            }
        }
    }

    @Test func aDeclinedSignInIsAccessDenied() async throws {
        let fake = FakeDeviceAuthorizationServer(polls: ["authorization_pending", "access_denied"])
        try await fake.run { url in
            await #expect(throws: SoukClientError.accessDenied) {
                try await Self.client(url, Waits()).signInWithDevice(clientId: "tv-app") { _ in }
            }
        }
    }

    @Test func anExpiredCodeIsExpiredDeviceCode() async throws {
        let fake = FakeDeviceAuthorizationServer(polls: ["expired_token"])
        try await fake.run { url in
            await #expect(throws: SoukClientError.expiredDeviceCode) {
                try await Self.client(url, Waits()).signInWithDevice(clientId: "tv-app") { _ in }
            }
        }
    }

    @Test func pollingStopsWhenTheCodesExpireEvenIfTheServerKeepsSayingPending() async throws {
        // expires_in is 60 s; without an interval the client waits the RFC's default 5 s: 12 polls.
        let fake = FakeDeviceAuthorizationServer(polls: Array(repeating: "authorization_pending", count: 50), interval: nil)
        try await fake.run { url in
            let waits = Waits()
            await #expect(throws: SoukClientError.expiredDeviceCode) {
                try await Self.client(url, waits).signInWithDevice(clientId: "tv-app") { _ in }
            }
            #expect(waits.all == Array(repeating: .seconds(5), count: 12))
            #expect(fake.forms.count == 13)
        }
    }

    @Test func anUnknownClientIsAnOAuthError() async throws {
        let fake = FakeDeviceAuthorizationServer(polls: [])
        try await fake.run { url in
            await #expect(throws: SoukClientError.oauth(error: "invalid_client", description: nil)) {
                try await Self.client(url, Waits()).signInWithDevice(clientId: "someone-else") { _ in
                    Issue.record("codes shown for an unknown client")
                }
            }
        }
    }
}
