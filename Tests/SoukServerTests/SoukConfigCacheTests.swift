import Foundation
import SoukApp
import SoukServer
import SoukTestSupport
import Testing

/// `tokenCacheEntries` and `entitlementCacheEntries`: how many entries each process's caches hold.
@Suite struct SoukConfigCacheTests {
    @Test func theCachesHoldAHundredThousandEntriesUnlessSet() async throws {
        let config = try await SoukConfig.load(flags: [:], environment: [:])
        #expect(config.tokenCacheEntries == 100_000)
        #expect(config.entitlementCacheEntries == 100_000)
    }

    @Test func theCacheSizesAreReadFromTheEnvironmentAndTheConfigFile() async throws {
        let fromEnvironment = try await SoukConfig.load(flags: [:], environment: [
            "SOUK_TOKEN_CACHE_ENTRIES": "250000", "SOUK_ENTITLEMENT_CACHE_ENTRIES": "1",
        ])
        #expect(fromEnvironment.tokenCacheEntries == 250_000)
        #expect(fromEnvironment.entitlementCacheEntries == 1)

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.path + "/souk.json"
        try Data(#"{"tokenCacheEntries": 5000, "entitlementCacheEntries": 7000}"#.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try await SoukConfig.load(flags: [:], environment: [:], configFile: file)
        #expect(fromFile.tokenCacheEntries == 5000)
        #expect(fromFile.entitlementCacheEntries == 7000)
    }

    @Test(arguments: [
        ("SOUK_TOKEN_CACHE_ENTRIES", "0", "tokenCacheEntries (SOUK_TOKEN_CACHE_ENTRIES)"),
        ("SOUK_TOKEN_CACHE_ENTRIES", "-5", "tokenCacheEntries (SOUK_TOKEN_CACHE_ENTRIES)"),
        ("SOUK_TOKEN_CACHE_ENTRIES", "lots", "tokenCacheEntries (SOUK_TOKEN_CACHE_ENTRIES)"),
        ("SOUK_ENTITLEMENT_CACHE_ENTRIES", "1.5", "entitlementCacheEntries (SOUK_ENTITLEMENT_CACHE_ENTRIES)"),
        ("SOUK_ENTITLEMENT_CACHE_ENTRIES", "100000001", "entitlementCacheEntries (SOUK_ENTITLEMENT_CACHE_ENTRIES)"),
    ])
    func aCacheSizeThatIsNotAPositiveWholeNumberStopsStartUpNamingIt(_ variable: String, _ value: String, _ setting: String) async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: [variable: value])
        }
        #expect(error?.setting == setting)
        #expect(error?.reason == "must be a whole number from 1 to 100000000")
    }
}
