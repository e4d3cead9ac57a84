import SoukCore
import Testing

@Suite struct MarketplaceConfigurationTests {
    @Test func pollingIsInHoursAndNeverBelow24() {
        #expect(MarketplaceConfiguration.standard(publicURL: "https://m.example", pollingInterval: 1).pollingInterval == 24)
        #expect(MarketplaceConfiguration.standard(publicURL: "https://m.example", pollingInterval: 48).pollingInterval == 48)
    }

    @Test func theDocumentUsesTheDocumentedKeys() throws {
        let base = MarketplaceConfiguration.standard(publicURL: "https://m.example", pollingInterval: 24)
        var other = base
        other.restore = "https://other.example/restore"
        let document = base.document(overrides: [6_497_405_838: other])
        #expect(document["restore"] as? String == "https://m.example/marketplace-kit/v1/restore")
        #expect(document["restores"] == nil)
        let updates = try #require(document["updates"] as? [String: Any])
        #expect(updates["url"] as? String == "https://m.example/marketplace-kit/v1/updates")
        #expect(updates["pollingInterval"] as? Int == 24)
        let license = try #require(document["license"] as? [String: Any])
        #expect(Set(license.keys) == ["dynamicLicenseURL", "licenseRenewalURL", "licenseResolutionURL",
                                      "signingCertificateURL", "encryptionCertificateURL"])
        let overrides = try #require(document["overridesByAppleItemID"] as? [String: [String: Any]])
        let copy = try #require(overrides["6497405838"])
        #expect(copy["restore"] as? String == "https://other.example/restore")
        #expect((copy["license"] as? [String: Any])?.count == 5)
        #expect(base.document(overrides: [:])["overridesByAppleItemID"] == nil)
    }
}
