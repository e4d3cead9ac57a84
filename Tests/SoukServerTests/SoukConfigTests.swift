import Foundation
import SoukApp
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct SoukConfigTests {
    @Test func defaultsWorkInAnEmptyFolder() async throws {
        let config = try await SoukConfig.load(flags: [:], environment: [:])
        #expect(config.dataDir == "./souk-data")
        #expect(config.hostname == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.publicURL == "http://127.0.0.1:8080")
        #expect(config.database == .sqlite(path: "./souk-data/souk.sqlite"))
        #expect(config.logLevel == .info)
        #expect(config.tls == nil)
        // Nothing is sold until a processor is chosen: no paid app is free by accident.
        #expect(config.commerce.paymentProcessor == "none")
    }

    @Test func thePaymentProcessorIsChosenExplicitly() async throws {
        for processor in ["none", "development"] {
            let config = try await SoukConfig.load(flags: [:], environment: ["SOUK_PAYMENT_PROCESSOR": processor])
            #expect(config.commerce.paymentProcessor == processor)
            #expect(config.commerce.stripeCheckoutOrigin == nil)
        }
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheConfigFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.path + "/souk.json"
        try Data(#"{"port": 7000, "hostname": "0.0.0.0", "logLevel": "debug", "dataDir": "/from/file"}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let config = try await SoukConfig.load(
            flags: ["dataDir": "/from/flag"],
            environment: ["SOUK_PORT": "9000", "SOUK_PUBLIC_URL": "https://market.example.com/", "SOUK_DATA_DIR": "/from/env"],
            configFile: file)
        #expect(config.dataDir == "/from/flag")
        #expect(config.port == 9000)
        #expect(config.hostname == "0.0.0.0")
        #expect(config.logLevel == .debug)
        #expect(config.publicURL == "https://market.example.com")
        #expect(config.database == .sqlite(path: "/from/flag/souk.sqlite"))
    }

    @Test func authorizationServerSettingsAreRead() async throws {
        let config = try await SoukConfig.load(flags: [:], environment: [
            "SOUK_ACCESS_TOKEN_SECONDS": "3600", "SOUK_REFRESH_TOKEN_SECONDS": "86400", "SOUK_AUTHORIZATION_CODE_SECONDS": "90",
            "SOUK_ALLOW_PLAIN_PKCE": "false", "SOUK_SIGN_UP": "TRUE",
        ])
        #expect(config.tokenLifetimes.accessToken == .seconds(3600))
        #expect(config.tokenLifetimes.refreshToken == .seconds(86_400))
        #expect(config.tokenLifetimes.authorizationCode == .seconds(90))
        #expect(!config.allowPlainPKCE)
        #expect(config.signUpEnabled)
    }

    @Test func aPostgresURLSwitchesTheDatabase() async throws {
        let config = try await SoukConfig.load(flags: [:], environment: ["SOUK_DATABASE_URL": "postgres://souk:secret@db:5432/souk"])
        #expect(config.database == .postgres(url: "postgres://souk:secret@db:5432/souk"))
        #expect(!config.database.description.contains("secret"))
    }

    @Test(arguments: [
        ("SOUK_PORT", "eighty", "port (SOUK_PORT, --port)"),
        ("SOUK_PORT", "70000", "port (SOUK_PORT, --port)"),
        ("SOUK_PUBLIC_URL", "ftp://x", "publicUrl (SOUK_PUBLIC_URL, --public-url)"),
        ("SOUK_PUBLIC_URL", "not a url", "publicUrl (SOUK_PUBLIC_URL, --public-url)"),
        ("SOUK_DATABASE_URL", "mysql://x@y/z", "databaseUrl (SOUK_DATABASE_URL, --database-url)"),
        ("SOUK_LOG_LEVEL", "loud", "logLevel (SOUK_LOG_LEVEL, --log-level)"),
        ("SOUK_TLS_CERT", "/nonexistent.pem", "tlsKey (SOUK_TLS_KEY, --tls-key)"),
        ("SOUK_ALLOW_PLAIN_PKCE", "maybe", "allowPlainPkce (SOUK_ALLOW_PLAIN_PKCE)"),
        ("SOUK_ACCESS_TOKEN_SECONDS", "5", "accessTokenSeconds (SOUK_ACCESS_TOKEN_SECONDS)"),
        ("SOUK_SIGN_UP", "yes please", "signUp (SOUK_SIGN_UP)"),
        ("SOUK_PAYMENT_PROCESSOR", "free", "paymentProcessor (SOUK_PAYMENT_PROCESSOR)"),
    ])
    func aBadSettingStopsStartUpNamingIt(_ variable: String, _ value: String, _ setting: String) async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: [variable: value])
        }
        #expect(error?.setting == setting)
    }

    @Test func aDatabasePasswordNeverAppearsInTheError() async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: ["SOUK_DATABASE_URL": "postgres://user:hunter2@"])
        }
        #expect(error.map { !"\($0)".contains("hunter2") } == true)
    }

    @Test func anUnreadableConfigFileIsNamed() async throws {
        let error = await #expect(throws: ConfigError.self) {
            try await SoukConfig.load(flags: [:], environment: [:], configFile: "/nonexistent/souk.json")
        }
        #expect(error?.setting.contains("SOUK_CONFIG") == true)
    }
}
