import Crypto
import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// Spec §4.1, check by check, with Apple-shaped chains made here.
@Suite struct AppleSignedDataVerifierTests {
    static let app = "com.example.reader"
    static let both: Set<CommerceEnvironment> = [.production, .sandbox]
    static let date2022 = Date(timeIntervalSince1970: 1_650_000_000)  // 2022-04-15
    static let date2024 = Date(timeIntervalSince1970: 1_710_000_000)  // 2024-03-09
    static let leaf2021to2023 = Date(timeIntervalSince1970: 1_609_459_200)...Date(timeIntervalSince1970: 1_688_169_600)

    static func verifier(trusting chains: AppleTestChain...) throws -> AppleSignedDataVerifier {
        try AppleSignedDataVerifier(additionalRootCertificates: chains.map(\.rootDER))
    }

    static func transaction(_ configure: (inout AppleTestTransaction) -> Void = { _ in }) -> AppleTestTransaction {
        var transaction = AppleTestTransaction(bundleId: app, productId: "com.example.reader.book1", type: .nonConsumable,
                                               purchaseDate: date2024)
        configure(&transaction)
        return transaction
    }

    func expectInvalid(_ result: AppleVerificationResult<AppleTransactionPayload>, _ reason: AppleVerificationFailure.Reason,
                       appleStatus: String = "VERIFICATION_FAILURE", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.failure?.reason == reason, "\(result.failure.map(String.init(describing:)) ?? "valid")", sourceLocation: sourceLocation)
        #expect(result.failure?.appleStatus == appleStatus, sourceLocation: sourceLocation)
    }

    @Test func signedTransactionFromAConfiguredChainVerifiesWithEveryField() async throws {
        let chain = try AppleTestChain.make()
        var sent = Self.transaction()
        sent.rawType = "Auto-Renewable Subscription"
        sent.expiresDate = Self.date2024 + 30 * 86_400
        sent.revocationDate = Self.date2024 + 86_400
        sent.revocationReason = 1
        sent.appAccountToken = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        sent.offerType = 1
        let result = try await Self.verifier(trusting: chain).verifyTransaction(chain.signTransaction(sent), bundleId: Self.app, environments: Self.both)
        let payload = try #require(result.payload)
        #expect(payload.transactionId == sent.transactionId)
        #expect(payload.originalTransactionId == sent.originalTransactionId)
        #expect(payload.productId == "com.example.reader.book1")
        #expect(payload.type == .autoRenewableSubscription)
        #expect(payload.purchaseDate == Self.date2024)
        #expect(payload.signedDate == Self.date2024)
        #expect(payload.expiresDate == Self.date2024 + 30 * 86_400)
        #expect(payload.revocationDate == Self.date2024 + 86_400)
        #expect(payload.revocationReason == .appIssue)
        #expect(payload.offerType == .introductory)
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.environment == .production)
        #expect(payload.quantity == 1)
        #expect(payload.price == 4990)
        #expect(payload.currency == "USD")
        #expect(payload.appAccountToken == "7E3FB20B-4CDB-47CC-936D-99D65F608138")
    }

    @Test(arguments: ["ES384", "RS256", "HS256", "none", "es256"])
    func algorithmOtherThanES256IsRefused(alg: String) async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction().jsonData, alg: alg)
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .unsupportedAlgorithm)
    }

    @Test func chainOfTwoCertificatesIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction().jsonData, x5c: [chain.leafDER, chain.intermediateDER])
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .invalidChainLength, appleStatus: "INVALID_CHAIN_LENGTH")
    }

    @Test func chainOfFourCertificatesIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction().jsonData, x5c: chain.x5c + [chain.rootDER])
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .invalidChainLength, appleStatus: "INVALID_CHAIN_LENGTH")
    }

    @Test func emptyOrMissingCertificateChainIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try Self.verifier(trusting: chain)
        let empty = chain.sign(Self.transaction().jsonData, x5c: [])
        expectInvalid(await verifier.verifyTransaction(empty, bundleId: Self.app, environments: Self.both), .missingCertificateChain)
        let header = AppleTestChain.base64URL(Data(#"{"alg":"ES256"}"#.utf8))
        let missing = header + "." + AppleTestChain.base64URL(Self.transaction().jsonData) + ".c2ln"
        expectInvalid(await verifier.verifyTransaction(missing, bundleId: Self.app, environments: Self.both), .missingCertificateChain)
    }

    @Test func chainToARootThatIsNotConfiguredIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let configured = try AppleTestChain.make()
        let jws = chain.signTransaction(Self.transaction())
        expectInvalid(try await Self.verifier(trusting: configured).verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .untrustedChain)
        // Apple's own root is always trusted, but it did not sign this chain either.
        expectInvalid(try await Self.verifier().verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .untrustedChain)
    }

    @Test func headerRootIsNotTrustedJustBecauseItIsInTheHeader() async throws {
        let chain = try AppleTestChain.make()
        let configured = try AppleTestChain.make()
        // x5c names the configured root, but the intermediate was issued by another one.
        let jws = chain.sign(Self.transaction().jsonData, x5c: [chain.leafDER, chain.intermediateDER, configured.rootDER])
        expectInvalid(try await Self.verifier(trusting: configured).verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .untrustedChain)
    }

    @Test func intermediateFromAnotherChainIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let other = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction().jsonData, x5c: [chain.leafDER, other.intermediateDER, other.rootDER])
        expectInvalid(try await Self.verifier(trusting: chain, other).verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .untrustedChain)
    }

    @Test func leafTrustedDirectlyAsARootIsStillNotAThreeCertificateChain() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.leafDER])
        let result = await verifier.verifyTransaction(chain.signTransaction(Self.transaction()), bundleId: Self.app, environments: Self.both)
        expectInvalid(result, .untrustedChain)
    }

    @Test func intermediateWithoutAppleOIDIsRefused() async throws {
        let chain = try AppleTestChain.make(.init(intermediateHasAppleOID: false))
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(chain.signTransaction(Self.transaction()), bundleId: Self.app, environments: Self.both),
                      .missingIntermediateOID)
    }

    @Test func leafWithoutAppleOIDIsRefused() async throws {
        let chain = try AppleTestChain.make(.init(leafHasAppleOID: false))
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(chain.signTransaction(Self.transaction()), bundleId: Self.app, environments: Self.both),
                      .missingLeafOID)
    }

    @Test func leafExpiredAtSignedDateIsRefused() async throws {
        let chain = try AppleTestChain.make(.init(leafValidity: Self.leaf2021to2023))
        let jws = chain.signTransaction(Self.transaction { $0.signedDate = Self.date2024 })
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .certificateNotValid)
    }

    @Test func leafNotYetValidAtSignedDateIsRefused() async throws {
        let chain = try AppleTestChain.make(.init(leafValidity: Self.date2024...AppleTestChain.defaultValidity.upperBound))
        let jws = chain.signTransaction(Self.transaction { $0.signedDate = Self.date2022 })
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .certificateNotValid)
    }

    @Test func leafExpiredTodayButValidAtSignedDateVerifies() async throws {
        let chain = try AppleTestChain.make(.init(leafValidity: Self.leaf2021to2023))
        let jws = chain.signTransaction(Self.transaction { $0.purchaseDate = Self.date2022; $0.signedDate = Self.date2022 })
        let result = try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both)
        #expect(result.payload?.signedDate == Self.date2022)
    }

    @Test func signedDateAtTheLeafsLastSecondVerifiesAndOneSecondLaterDoesNot() async throws {
        let chain = try AppleTestChain.make(.init(leafValidity: Self.leaf2021to2023))
        let verifier = try Self.verifier(trusting: chain)
        let last = chain.signTransaction(Self.transaction { $0.signedDate = Self.leaf2021to2023.upperBound + 0.999 })
        #expect(await verifier.verifyTransaction(last, bundleId: Self.app, environments: Self.both).payload != nil)
        let after = chain.signTransaction(Self.transaction { $0.signedDate = Self.leaf2021to2023.upperBound + 1 })
        expectInvalid(await verifier.verifyTransaction(after, bundleId: Self.app, environments: Self.both), .certificateNotValid)
    }

    @Test func payloadWithoutSignedDateIsJudgedNow() async throws {
        let chain = try AppleTestChain.make(.init(leafValidity: Self.leaf2021to2023))
        var payload = try #require(try JSONSerialization.jsonObject(with: Self.transaction().jsonData) as? [String: Any])
        payload["signedDate"] = nil
        let jws = chain.sign(try JSONSerialization.data(withJSONObject: payload))
        let today = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER], now: { Date() })
        expectInvalid(await today.verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .certificateNotValid)
        let in2022 = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER], now: { Self.date2022 })
        #expect(await in2022.verifyTransaction(jws, bundleId: Self.app, environments: Self.both).payload != nil)
    }

    @Test func signatureByAnotherKeyIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction().jsonData, signingKey: P256.Signing.PrivateKey())
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .invalidSignature)
    }

    @Test func payloadChangedAfterSigningIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let genuine = chain.signTransaction(Self.transaction())
        let forged = chain.signTransaction(Self.transaction { $0.productId = "com.example.reader.everything" })
        let parts = genuine.split(separator: ".")
        let swapped = [parts[0], forged.split(separator: ".")[1], parts[2]].joined(separator: ".")
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(swapped, bundleId: Self.app, environments: Self.both), .invalidSignature)
    }

    @Test func transactionOfAnotherAppIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.signTransaction(Self.transaction { $0.bundleId = "com.example.other" })
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .wrongApp, appleStatus: "INVALID_APP_IDENTIFIER")
    }

    @Test(arguments: ["Xcode", "LocalTesting", "production", "Staging"])
    func environmentOtherThanProductionOrSandboxIsNeverAccepted(environment: String) async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.signTransaction(Self.transaction { $0.environment = environment })
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .wrongEnvironment, appleStatus: "INVALID_ENVIRONMENT")
    }

    @Test func xcodeSignedDataWithItsOneCertificateChainIsRefused() async throws {
        // What Xcode's StoreKit testing produces: a single self-made certificate in x5c.
        let chain = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction { $0.environment = "Xcode" }.jsonData, x5c: [chain.leafDER])
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .invalidChainLength, appleStatus: "INVALID_CHAIN_LENGTH")
    }

    @Test func environmentOutsideTheAcceptedSetIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try Self.verifier(trusting: chain)
        let sandbox = chain.signTransaction(Self.transaction { $0.environment = "Sandbox" })
        expectInvalid(await verifier.verifyTransaction(sandbox, bundleId: Self.app, environments: [.production]), .wrongEnvironment, appleStatus: "INVALID_ENVIRONMENT")
        #expect(await verifier.verifyTransaction(sandbox, bundleId: Self.app, environments: [.sandbox]).payload?.environment == .sandbox)
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "!!!.???.***", "e30.e30", "e30.e30.e30.e30"])
    func malformedJWSIsRefused(jws: String) async throws {
        expectInvalid(try await Self.verifier().verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .malformedJWS)
    }

    @Test func headerOrPayloadThatIsNotAJSONObjectIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try Self.verifier(trusting: chain)
        let good = chain.signTransaction(Self.transaction()).split(separator: ".").map(String.init)
        let notJSON = AppleTestChain.base64URL(Data("not json".utf8))
        let array = AppleTestChain.base64URL(Data("[1,2]".utf8))
        for jws in [[notJSON, good[1], good[2]], [good[0], notJSON, good[2]], [good[0], array, good[2]],
                    [good[0], good[1], "%%%"]].map({ $0.joined(separator: ".") }) {
            expectInvalid(await verifier.verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .malformedJWS)
        }
    }

    @Test func x5cThatIsNotAListOfStringsIsRefusedAsApplesLibraryDoes() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try Self.verifier(trusting: chain)
        let payload = AppleTestChain.base64URL(Self.transaction().jsonData)
        func jws(_ header: String) -> String { AppleTestChain.base64URL(Data(header.utf8)) + "." + payload + ".c2ln" }
        expectInvalid(await verifier.verifyTransaction(jws(#"{"alg":"ES256","x5c":"abc"}"#), bundleId: Self.app, environments: Self.both),
                      .invalidCertificate, appleStatus: "INVALID_CERTIFICATE")
        expectInvalid(await verifier.verifyTransaction(jws(#"{"alg":"ES256","x5c":"abcd"}"#), bundleId: Self.app, environments: Self.both),
                      .invalidChainLength, appleStatus: "INVALID_CHAIN_LENGTH")
        expectInvalid(await verifier.verifyTransaction(jws(#"{"alg":"ES256","x5c":[1,2,3]}"#), bundleId: Self.app, environments: Self.both),
                      .invalidCertificate, appleStatus: "INVALID_CERTIFICATE")
        expectInvalid(await verifier.verifyTransaction(jws(#"{"alg":"ES256","x5c":7}"#), bundleId: Self.app, environments: Self.both),
                      .missingCertificateChain)
        expectInvalid(await verifier.verifyTransaction(jws(#"{"alg":"ES256","x5c":null}"#), bundleId: Self.app, environments: Self.both),
                      .missingCertificateChain)
        expectInvalid(await verifier.verifyTransaction(jws(#"{"alg":7,"x5c":["a","b","c"]}"#), bundleId: Self.app, environments: Self.both),
                      .unsupportedAlgorithm)
    }

    @Test func headerWithNonStringKidOrCriticalExtensionsIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try Self.verifier(trusting: chain)
        let x5c = chain.x5c.map { "\"\($0.base64EncodedString())\"" }.joined(separator: ",")
        for header in [#"{"alg":"ES256","kid":5,"x5c":[\#(x5c)]}"#, #"{"alg":"ES256","crit":["exp"],"x5c":[\#(x5c)]}"#] {
            let signingInput = AppleTestChain.base64URL(Data(header.utf8)) + "." + AppleTestChain.base64URL(Self.transaction().jsonData)
            let signature = try chain.leafKey.signature(for: Data(signingInput.utf8)).rawRepresentation
            let jws = signingInput + "." + AppleTestChain.base64URL(signature)
            expectInvalid(await verifier.verifyTransaction(jws, bundleId: Self.app, environments: Self.both), .malformedJWS)
        }
        // A string kid is fine.
        let header = #"{"alg":"ES256","kid":"apple","x5c":[\#(x5c)]}"#
        let signingInput = AppleTestChain.base64URL(Data(header.utf8)) + "." + AppleTestChain.base64URL(Self.transaction().jsonData)
        let signature = try chain.leafKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        #expect(await verifier.verifyTransaction(signingInput + "." + AppleTestChain.base64URL(signature), bundleId: Self.app,
                                                 environments: Self.both).payload != nil)
    }

    @Test(arguments: [
        (#"{"exp": 1000}"#, false), (#"{"exp": 4102444800}"#, true), (#"{"exp": "soon"}"#, false),
        (#"{"nbf": 4102444800}"#, false), (#"{"nbf": 1000}"#, true), (#"{"iat": 4102444800}"#, false), (#"{"iat": "1000"}"#, true),
        (#"{"iat": 1.5}"#, true), (#"{"aud": "someone"}"#, false), (#"{"aud": ""}"#, true), (#"{"aud": []}"#, true),
        (#"{"sub": 5}"#, false), (#"{"sub": "me"}"#, true), (#"{"jti": true}"#, false), (#"{"iss": 5}"#, true),
    ])
    func registeredClaimsAreJudgedAsApplesPythonLibraryJudgesThem(claims: String, accepted: Bool) async throws {
        let chain = try AppleTestChain.make()
        var payload = try #require(try JSONSerialization.jsonObject(with: Self.transaction().jsonData) as? [String: Any])
        let extra = try #require(try JSONSerialization.jsonObject(with: Data(claims.utf8)) as? [String: Any])
        payload.merge(extra) { _, new in new }
        let jws = chain.sign(try JSONSerialization.data(withJSONObject: payload))
        let result = try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both)
        if accepted {
            #expect(result.payload != nil, "\(claims): \(result.failure.map(String.init(describing:)) ?? "")")
        } else {
            expectInvalid(result, .invalidRegisteredClaim)
        }
    }

    @Test func certificateThatIsNotDERIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.sign(Self.transaction().jsonData, x5c: [Data("not a certificate".utf8), chain.intermediateDER, chain.rootDER])
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both),
                      .invalidCertificate, appleStatus: "INVALID_CERTIFICATE")
    }

    @Test func unknownEnumValuesAreKeptRaw() async throws {
        let chain = try AppleTestChain.make()
        let jws = chain.signTransaction(Self.transaction {
            $0.rawType = "Advanced Commerce Subscription"
            $0.inAppOwnershipType = "SOMETHING_NEW"
            $0.transactionReason = "GIFT"
            $0.offerType = 9
        })
        let payload = try #require(try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both).payload)
        #expect(payload.type == nil && payload.rawType == "Advanced Commerce Subscription")
        #expect(payload.inAppOwnershipType == nil && payload.rawInAppOwnershipType == "SOMETHING_NEW")
        #expect(payload.transactionReason == nil && payload.rawTransactionReason == "GIFT")
        #expect(payload.offerType == nil && payload.rawOfferType == 9)
    }

    @Test func fieldTypesAreConvertedAsApplesPythonLibraryConvertsThem() async throws {
        let chain = try AppleTestChain.make()
        var payload = try #require(try JSONSerialization.jsonObject(with: Self.transaction().jsonData) as? [String: Any])
        payload["quantity"] = "2"
        payload["transactionId"] = 2_000_000_912_345_678
        payload["price"] = 4.99
        payload["isUpgraded"] = "yes"
        payload["signedDate"] = "1710000000000"
        let jws = chain.sign(try JSONSerialization.data(withJSONObject: payload))
        let verified = try await Self.verifier(trusting: chain).verifyTransaction(jws, bundleId: Self.app, environments: Self.both)
        let transaction = try #require(verified.payload)
        #expect(transaction.quantity == 2)
        #expect(transaction.transactionId == "2000000912345678")
        #expect(transaction.price == 4)
        #expect(transaction.isUpgraded == true)
        #expect(transaction.signedDate == Self.date2024)
        payload["quantity"] = "two"
        let unconvertible = chain.sign(try JSONSerialization.data(withJSONObject: payload))
        expectInvalid(try await Self.verifier(trusting: chain).verifyTransaction(unconvertible, bundleId: Self.app, environments: Self.both), .malformedJWS)
    }

    @Test func verifiedChainIsCachedAndStillJudgedAtEachSignedDate() async throws {
        let chain = try AppleTestChain.make(.init(leafValidity: Self.leaf2021to2023))
        let verifier = try Self.verifier(trusting: chain)
        #expect(verifier.cachedChainCount == 0)
        let first = chain.signTransaction(Self.transaction { $0.signedDate = Self.date2022 })
        #expect(await verifier.verifyTransaction(first, bundleId: Self.app, environments: Self.both).payload != nil)
        #expect(verifier.cachedChainCount == 1)
        let second = chain.signTransaction(Self.transaction { $0.signedDate = Self.date2022 + 60 })
        #expect(await verifier.verifyTransaction(second, bundleId: Self.app, environments: Self.both).payload != nil)
        #expect(verifier.cachedChainCount == 1)
        let expired = chain.signTransaction(Self.transaction { $0.signedDate = Self.date2024 })
        expectInvalid(await verifier.verifyTransaction(expired, bundleId: Self.app, environments: Self.both), .certificateNotValid)
        // The cache never vouches for a signature.
        let forged = chain.sign(Self.transaction { $0.signedDate = Self.date2022 }.jsonData, signingKey: P256.Signing.PrivateKey())
        expectInvalid(await verifier.verifyTransaction(forged, bundleId: Self.app, environments: Self.both), .invalidSignature)
    }

    @Test func cacheHoldsAtMost32ChainsAndForgetsThemAfter15Minutes() async throws {
        let chains = try (0..<40).map { _ in try AppleTestChain.make() }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: chains.map(\.rootDER), now: { clock.now })
        for chain in chains {
            #expect(await verifier.verifyTransaction(chain.signTransaction(Self.transaction()), bundleId: Self.app, environments: Self.both).payload != nil)
            clock.advance(1)
        }
        #expect(verifier.cachedChainCount == 32)
        clock.advance(15 * 60)
        #expect(await verifier.verifyTransaction(chains[0].signTransaction(Self.transaction()), bundleId: Self.app, environments: Self.both).payload != nil)
        #expect(verifier.cachedChainCount == 1)
    }

    @Test func failedChainsAreNotCached() async throws {
        let chain = try AppleTestChain.make(.init(leafHasAppleOID: false))
        let verifier = try Self.verifier(trusting: chain)
        _ = await verifier.verifyTransaction(chain.signTransaction(Self.transaction()), bundleId: Self.app, environments: Self.both)
        #expect(verifier.cachedChainCount == 0)
    }

    @Test func rootThatIsNotACertificateIsAConfigurationError() throws {
        #expect(throws: (any Error).self) { try AppleSignedDataVerifier(additionalRootCertificates: [Data("nope".utf8)]) }
        #expect(throws: (any Error).self) { try AppleSignedDataVerifier(additionalRootCertificatePaths: ["/nonexistent/root.cer"]) }
    }
}
