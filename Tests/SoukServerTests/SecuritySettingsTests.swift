import Foundation
import SoukApp
import SoukCore
import SoukServer
import SoukTestSupport
import Testing

/// `trustedProxies` and `metricsToken` (docs/oauth.md, docs/operations.md).
@Suite struct SecuritySettingsTests {
    @Test func trustedProxiesAreReadAsRangesFromTheEnvironmentOrAFileArray() async throws {
        let none = try await SoukConfig.load(flags: [:], environment: [:])
        #expect(none.trustedProxies.isEmpty)
        #expect(none.metricsToken == nil)

        let config = try await SoukConfig.load(flags: [:], environment: ["SOUK_TRUSTED_PROXIES": " 10.0.0.0/8, fd00::/8 ,192.0.2.7"])
        #expect(config.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "192.0.2.7/32"])

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.path + "/souk.json"
        try Data(#"{"trustedProxies": ["172.16.0.0/12", "::1"], "metricsToken": "0123456789abcdef"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try await SoukConfig.load(flags: [:], environment: [:], configFile: file)
        #expect(fromFile.trustedProxies.map(\.description) == ["172.16.0.0/12", "::1/128"])
        #expect(fromFile.metricsToken == "0123456789abcdef")
    }

    @Test(arguments: ["10.0.0.0/33", "proxy.example.com", "10.0.0.0/8,nonsense"])
    func aBadTrustedProxyStopsStartUpNamingIt(_ value: String) async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: ["SOUK_TRUSTED_PROXIES": value])
        }
        #expect(error?.setting == "trustedProxies (SOUK_TRUSTED_PROXIES)")
    }

    @Test func aShortMetricsTokenStopsStartUpWithoutShowingIt() async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: ["SOUK_METRICS_TOKEN": "hunter2"])
        }
        #expect(error?.setting == "metricsToken (SOUK_METRICS_TOKEN)")
        #expect(error.map { !"\($0)".contains("hunter2") } == true)
    }
}
