import Foundation
import SoukCore
import Testing

/// The catalog file's `stores` object: read, written back, checked, and changed
/// one key at a time as `souk stores set` does.
@Suite struct CatalogStoresTests {
    static let file = """
        {"app": "com.example.reader", "stores": {
          "apple_store": {"bundleId": "com.example.reader", "appAppleId": 1234567890, "keyId": "ABC123DEFG",
                          "issuerId": "57246542-96fe-1a63-e053-0824d011072a", "privateKeyPath": "/etc/souk/key.p8"},
          "google_play": {"packageName": "com.example.reader", "serviceAccountPath": "/etc/souk/play.json", "rtdnTokenEnv": "READER_RTDN",
                          "pushAudience": "https://souk.example/rtdn"},
          "amazon": {"sharedSecretEnv": "AMAZON_SECRET", "sandbox": true},
          "roku": {"partnerApiKeyPath": "/etc/souk/roku.key"}
        }}
        """

    @Test func everyStoreIsReadAndWrittenBackTheSame() throws {
        let catalog = try CatalogFile.parse(Self.file)
        let stores = try #require(catalog.stores)
        #expect(stores.apple == AppleStoreSettings(bundleId: "com.example.reader", appAppleId: 1_234_567_890, keyId: "ABC123DEFG",
                                                   issuerId: "57246542-96fe-1a63-e053-0824d011072a", privateKey: .path("/etc/souk/key.p8")))
        #expect(stores.googlePlay == GooglePlaySettings(packageName: "com.example.reader", serviceAccount: .path("/etc/souk/play.json"),
                                                        rtdnToken: .env("READER_RTDN"), pushAudience: "https://souk.example/rtdn"))
        #expect(stores.amazon == AmazonSettings(sharedSecret: .env("AMAZON_SECRET"), sandbox: true))
        #expect(stores.roku == RokuSettings(partnerApiKey: .path("/etc/souk/roku.key")))
        let again = try CatalogFile.parse(CatalogFile.encode(catalog))
        #expect(again == catalog)
        #expect(try CatalogFile.stores(json: CatalogFile.jsonValue(stores).compactText()) == stores)
    }

    @Test func aFileWithoutStoresSaysNothingAboutThem() throws {
        let catalog = try CatalogFile.parse(#"{"app": "com.example.reader"}"#)
        #expect(catalog.stores == nil)
        #expect(!CatalogFile.encode(catalog).contains("stores"))
    }

    @Test(arguments: [
        (#"{"nokia": {}}"#, "stores.nokia"),
        (#"{"amazon": {"sharedSecret": "s3cr3t"}}"#, "stores.amazon.sharedSecret"),
        (#"{"amazon": {"sharedSecretPath": "/a", "sharedSecretEnv": "B"}}"#, "stores.amazon.sharedSecretEnv"),
        (#"{"roku": {"partnerApiKeyEnv": "not a name"}}"#, "stores.roku.partnerApiKeyEnv"),
        (#"{"apple_store": {"appAppleId": "123"}}"#, "stores.apple_store.appAppleId"),
        (#"{"apple_store": {"appAppleId": -5}}"#, "stores.apple_store.appAppleId"),
        (#"{"google_play": {"packageName": " "}}"#, "stores.google_play.packageName"),
        (#"{"amazon": {"sandbox": "yes"}}"#, "stores.amazon.sandbox"),
        (#"[]"#, "stores"),
    ])
    func aWrongStoresObjectNamesItsPath(stores: String, path: String) {
        #expect(throws: CatalogFileError.self) { try CatalogFile.parse(#"{"app": "com.example.reader", "stores": \#(stores)}"#) }
        do {
            _ = try CatalogFile.parse(#"{"app": "com.example.reader", "stores": \#(stores)}"#)
        } catch {
            #expect(error.path == path)
        }
    }

    @Test func settingOneKeyKeepsTheRestAndAPathReplacesItsEnv() throws {
        let stores = try #require(try CatalogFile.parse(Self.file).stores)
        let changed = try CatalogFile.settingStore(.amazon, in: stores, [("sharedSecretPath", .string("/etc/souk/amazon.secret"))])
        #expect(changed.amazon == AmazonSettings(sharedSecret: .path("/etc/souk/amazon.secret"), sandbox: true))
        #expect(changed.apple == stores.apple && changed.googlePlay == stores.googlePlay && changed.roku == stores.roku)
        let unset = try CatalogFile.settingStore(.googlePlay, in: changed, [("pushAudience", nil)])
        #expect(unset.googlePlay?.pushAudience == nil && unset.googlePlay?.packageName == "com.example.reader")
        let fresh = try CatalogFile.settingStore(.roku, in: CommerceStoreSettings(), [("partnerApiKeyEnv", .string("ROKU_KEY"))])
        #expect(fresh == CommerceStoreSettings(roku: RokuSettings(partnerApiKey: .env("ROKU_KEY"))))
        #expect(throws: CatalogFileError.self) { try CatalogFile.settingStore(.roku, in: stores, [("bundleId", .string("x"))]) }
    }

    @Test func theDiffNamesTheStoresAFileChanges() throws {
        let catalog = try CatalogFile.parse(Self.file)
        let state = CommerceCatalogState(catalog: catalog, retired: [], revision: 1, modifiedAt: Date())
        var next = catalog
        #expect(try CatalogDiff.between(state, next).isEmpty)
        next.stores?.roku = nil
        next.stores?.amazon?.sandbox = false
        let diff = try CatalogDiff.between(state, next)
        #expect(diff.changedStores == [.amazon, .roku])
        #expect(diff.lines == ["~ stores.amazon", "~ stores.roku"])
        next.stores = nil
        #expect(try CatalogDiff.between(state, next).isEmpty)
    }

    @Test func secretsAreReadAtUseAndNeverShown() throws {
        #expect(try SecretReference.env("X_SECRET").resolve(environment: ["X_SECRET": "s3cr3t"]) == "s3cr3t")
        #expect(throws: StoreSettingsError.self) { try SecretReference.env("X_SECRET").resolve(environment: [:]) }
        #expect(SecretReference.path("/etc/souk/x").description == "file /etc/souk/x")
        let encoded = CatalogFile.encode(CommerceCatalog(app: "com.example.reader",
                                                         stores: CommerceStoreSettings(amazon: AmazonSettings(sharedSecret: .env("X_SECRET")))))
        #expect(encoded.contains("\"sharedSecretEnv\": \"X_SECRET\"") && !encoded.contains("s3cr3t"))
    }
}
