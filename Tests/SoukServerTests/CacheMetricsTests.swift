import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukServer
import SoukTestSupport
import Testing

/// `/metrics` reports the token and entitlement caches: hits, misses, evictions, entries, capacity.
@Suite struct CacheMetricsTests {
    @Test func metricsReportTheCachesHitsMissesAndEvictions() async throws {
        try await ServerFixture.with(.sqlite, configure: {
            // The fixture holds nothing (it asks the database every time); these caches hold answers.
            $0.catalogRefreshMilliseconds = 60_000
            $0.tokenCacheEntries = 2
            $0.entitlementCacheEntries = 3
        }) { client in
            // Every request carrying a bearer asks the token cache: three strangers, then one of them again.
            for token in ["sat_one", "sat_two", "sat_three", "sat_three"] {
                _ = try await client.execute(uri: "/health", method: .get, headers: [.authorization: "Bearer \(token)"])
            }
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let lines = Set(text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"souk_cache_misses_total{cache="tokens"} 3"#))
            #expect(lines.contains(#"souk_cache_hits_total{cache="tokens"} 1"#))
            #expect(lines.contains(#"souk_cache_evictions_total{cache="tokens"} 1"#))
            #expect(lines.contains(#"souk_cache_entries{cache="tokens"} 2.0"#))
            #expect(lines.contains(#"souk_cache_capacity{cache="tokens"} 2.0"#))
            #expect(lines.contains(#"souk_cache_capacity{cache="entitlements"} 3.0"#))
            #expect(lines.contains(#"souk_cache_hits_total{cache="entitlements"} 0"#))
            #expect(text.contains("# TYPE souk_cache_hits_total counter"))

            // A second scrape adds only what happened since.
            _ = try await client.execute(uri: "/health", method: .get, headers: [.authorization: "Bearer sat_three"])
            let again = Set(String(buffer: try await client.execute(uri: "/metrics", method: .get).body).split(separator: "\n").map(String.init))
            #expect(again.contains(#"souk_cache_hits_total{cache="tokens"} 2"#))
            #expect(again.contains(#"souk_cache_misses_total{cache="tokens"} 3"#))
        }
    }
}
