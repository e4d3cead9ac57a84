import Foundation
@testable import SoukApp
import SoukIntegrations
@testable import SoukServer
import Testing

/// `amazonSnsCertUrlPattern`: Amazon's SNS hosts by default, any regular expression the operator sets, and a
/// start-up error naming the setting for one that is not a regular expression.
@Suite struct AmazonSNSSettingTests {
    @Test func thePatternDefaultsToAmazonSNSAndIsRead() async throws {
        #expect(try await SoukConfig.load(flags: [:], environment: [:]).commerce.stores.amazonSNSCertURLPattern
                == #"^https://sns\.[a-z0-9-]+\.amazonaws\.com/"#)
        let set = try await SoukConfig.load(flags: [:], environment: ["SOUK_AMAZON_SNS_CERT_URL_PATTERN": #"^http://127\.0\.0\.1:[0-9]+/"#])
        #expect(set.commerce.stores.amazonSNSCertURLPattern == #"^http://127\.0\.0\.1:[0-9]+/"#)
        #expect(SoukConfig.settings.contains { $0.key == "amazonSnsCertUrlPattern" && $0.env == "SOUK_AMAZON_SNS_CERT_URL_PATTERN" })
    }

    @Test func aPatternThatIsNotARegularExpressionStopsStartUp() async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: ["SOUK_AMAZON_SNS_CERT_URL_PATTERN": "^https://(sns"])
        }
        #expect(error?.setting == "amazonSnsCertUrlPattern (SOUK_AMAZON_SNS_CERT_URL_PATTERN)")
    }

    @Test func theDefaultPatternTrustsOnlyAmazonSNSHosts() throws {
        let verifier = try AmazonSNSVerifier(http: StoreHTTPClient())
        #expect(verifier.trusts("https://sns.us-east-1.amazonaws.com/SimpleNotificationService-a86cb10b4e1f29c941702d737128f7b6.pem"))
        #expect(verifier.trusts("https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=x"))
        for url in ["http://sns.us-east-1.amazonaws.com/x.pem", "https://sns.us-east-1.amazonaws.com.evil.example/x.pem",
                    "https://evil.example/sns.us-east-1.amazonaws.com/x.pem", "https://sns.us-east-1.amazonaws.com@evil.example/x.pem",
                    "http://127.0.0.1:8080/SimpleNotificationService-1.pem"] {
            #expect(!verifier.trusts(url), "\(url)")
        }
    }
}
