import Configuration
import Foundation
import Logging
import SoukCore
import SoukIntegrations
import SoukStore

/// Every setting Souk reads, typed and validated once at start-up.
///
/// Sources, highest priority first: command-line flags, `SOUK_*` environment variables, the JSON
/// config file named by `--config` or `SOUK_CONFIG`, then the defaults below, which make
/// `souk serve` work in an empty folder.
public struct SoukConfig: Sendable {
    /// Where the SQLite database, blobs and keys live (`SOUK_DATA_DIR`, default `./souk-data`).
    public var dataDir: String
    public var hostname: String
    public var port: Int
    /// The external base URL used in every generated URL, without a trailing slash.
    public var publicURL: String
    public var database: DatabaseLocation
    /// How long a query waits for a free pooled connection before it fails (its request answers 503).
    public var databasePoolWaitSeconds = 10
    public var logLevel: Logger.Level
    /// PEM certificate chain and private key when Souk terminates TLS itself.
    public var tls: TLSFiles?
    /// Lifetimes of access tokens, refresh tokens, authorization codes and install-link grants.
    public var tokenLifetimes = TokenLifetimes()
    /// Whether `code_challenge_method=plain` is accepted (Apple's seed allows it; S256 is what iOS sends).
    public var allowPlainPKCE = true
    /// Whether people may create their own accounts on the website (`/signup`).
    public var signUpEnabled = false
    /// Whether support and operator accounts must turn on two-factor sign-in before the console opens.
    public var consoleRequiresTwoFactor = true
    /// Whether a version a developer uploads waits in review until an operator releases it
    /// (docs/developers.md, "Review"); versions the operator imports are released at once.
    public var reviewNewVersions = true
    /// The marketplace's share of a developer organisation's sales, in percent (an organisation's
    /// own `commission_percent` overrides it; docs/developers.md, "Payouts").
    public var commissionPercent = 15
    /// The currency metrics are converted into (docs/metrics.md, "Exchange rates").
    public var reportingCurrency = "USD"
    /// `updates.pollingInterval` of `/.well-known/marketplace-kit`, in hours (never below 24).
    public var updatesPollingHours = 24
    /// How often each process checks the catalog change log (and re-reads signing keys); 0 checks on every request.
    public var catalogRefreshMilliseconds = 1000
    /// Most access tokens each process holds in memory; the least recently used makes room (docs/operations.md).
    public var tokenCacheEntries = 100_000
    /// Most (account, app) purchase lists each process holds in memory for entitlement checks; the least recently used makes room.
    public var entitlementCacheEntries = 100_000
    /// How often a server sweeps expired codes, tokens, sessions, throttle counters and old licenses (0: never; `souk maintenance cleanup` does it once).
    public var cleanupIntervalSeconds = 900
    /// How often a server brings the daily metrics rollup up to date (0: never; `souk metrics rebuild` does it once).
    public var metricsRollupIntervalSeconds = 300
    /// Licensing (docs/licensing.md).
    public var licensing = LicensingSettings()
    /// Reverse proxies whose `X-Forwarded-For` names the client for sign-in throttling; empty: the header is ignored.
    public var trustedProxies: [IPNetwork] = []
    /// When set, `GET /metrics` answers only `Authorization: Bearer <metricsToken>` (a secret).
    public var metricsToken: String?
    /// The largest request body Souk reads (`413` beyond); console uploads have their own limits.
    public var maxBodyBytes = 1 << 20
    /// Who sends package and hosted-content bytes once Souk has authorized a download (docs/deploy.md).
    public var downloadsVia: DownloadsVia = .souk
    /// nginx's `internal` location serving `<dataDir>/blobs/`, with `downloadsVia = nginx`.
    public var xAccelPrefix = "/_souk_blobs/"
    /// Blobs in an S3-compatible object store instead of only the data folder (`blobStore = s3`).
    public var objectStore: S3ObjectStore.Settings?
    /// Each organisation's daily export to a bucket (`scheduledExports = true`); nil: off.
    public var scheduledExports: ScheduledExportSettings?

    public enum DownloadsVia: String, Sendable, Equatable {
        /// Souk streams the bytes itself.
        case souk
        /// Souk answers with `X-Accel-Redirect` and an empty body; nginx sends the file.
        case nginx
    }

    public struct LicensingSettings: Sendable, Equatable {
        /// `development` (Souk's own documented format) or `sidecar` (Apple's SDK behind an HTTP service).
        public var issuer = "development"
        public var sidecarURL: String?
        public var sidecarToken: String?
        /// License lifetime for public apps and for apps that need an account (renewed daily by iOS).
        public var publicHours = 720
        public var accountHours = 48
        /// Most devices with live licenses per account (0: no limit); an account may have its own.
        public var deviceLimit = 0

        public init() {}
    }

    /// App Store Connect: the webhook's shared secret, the API's base URL and API key (see docs/marketplacekit.md).
    public var appStoreConnect = AppStoreConnectSettings()

    public struct AppStoreConnectSettings: Sendable, Equatable {
        public var webhookSecret: String?
        public var baseURL = "https://api.appstoreconnect.apple.com"
        public var keyId: String?
        public var issuerId: String?
        /// Path of the API key's `.p8` file (PKCS#8 PEM).
        public var privateKeyPath: String?

        public init() {}
    }

    /// In-app commerce (docs/commerce.md).
    public var commerce = CommerceSettings()

    public struct CommerceSettings: Sendable, Equatable {
        /// `type.value` of the Pipes2 product feed: the payment provider's name.
        public var providerName = "souk"
        /// DER certificates trusted *in addition to* the built-in Apple Root CA - G3 (tests, private roots).
        public var appleRootCertificates: [String] = []
        /// A store transaction another account already owns: `transfer`, `transfer-if-inactive` or `keep`.
        public var transferPolicy: TransferPolicy = .transfer
        /// How long an intake (`POST transactions`, restore) waits for a store's verdict before answering 202 + `Location`.
        public var verifyTimeoutMilliseconds = 3000
        /// Each store's base URL and the retry policy of store calls.
        public var stores = StoreEndpoints()
        /// Webhook deliveries: back-off from `webhookRetryBase` doubling to `webhookRetryMax`, for 3 days.
        public var webhookRetryBase: Duration = .seconds(60)
        public var webhookRetryMax: Duration = .seconds(3600)
        /// How often the reconciliation service looks for subscriptions to ask their store about again.
        public var reconcileIntervalSeconds = 300
        /// Who takes the marketplace's own payments: `none` (nothing is sold: checkout answers 503
        /// `payments-not-configured`), `development` (no money moves: every order is paid at once,
        /// chosen explicitly or by `serve --demo`) or `stripe`. Sandbox accounts always pay through
        /// `development`.
        public var paymentProcessor = "none"
        public var stripeBaseURL = "https://api.stripe.com"
        /// The Stripe secret key (`sk_…`), never logged.
        public var stripeSecretKey: String?
        /// The signing secret of the `/webhooks/stripe` endpoint (`whsec_…`); unset: the endpoint answers 404.
        public var stripeWebhookSecret: String?

        /// Where Stripe Checkout pages are (the Buy form's redirect goes there): Stripe's checkout host,
        /// or the configured base URL for a local fake.
        public var stripeCheckoutOrigin: String? {
            guard paymentProcessor == "stripe" else { return nil }
            return stripeBaseURL == "https://api.stripe.com" ? "https://checkout.stripe.com" : stripeBaseURL
        }

        public init() {}
    }

    public struct TLSFiles: Sendable, Equatable {
        public var certificatePath: String
        public var keyPath: String
    }

    /// The settings table: key in the config file, environment variable, flag and meaning.
    /// The README repeats it for people; keep the two in step.
    public static let settings: [(key: String, env: String, flag: String, meaning: String)] = [
        ("dataDir", "SOUK_DATA_DIR", "--data-dir", "folder for the SQLite database, blobs and keys (default ./souk-data)"),
        ("hostname", "SOUK_HOSTNAME", "--hostname", "address to listen on (default 127.0.0.1)"),
        ("port", "SOUK_PORT", "--port", "port to listen on (default 8080)"),
        ("publicUrl", "SOUK_PUBLIC_URL", "--public-url", "external base URL used in generated URLs (default http://<hostname>:<port>)"),
        ("databaseUrl", "SOUK_DATABASE_URL", "--database-url", "postgres://user:pass@host:5432/db switches from SQLite to PostgreSQL"),
        ("databasePoolWaitSeconds", "SOUK_DATABASE_POOL_WAIT_SECONDS", "-", "seconds a query waits for a free database connection before its request answers 503 (default 10)"),
        ("logLevel", "SOUK_LOG_LEVEL", "--log-level", "trace, debug, info, notice, warning, error or critical (default info)"),
        ("tlsCert", "SOUK_TLS_CERT", "--tls-cert", "PEM certificate chain; with tlsKey, Souk serves HTTPS itself"),
        ("tlsKey", "SOUK_TLS_KEY", "--tls-key", "PEM private key for tlsCert"),
        ("accessTokenSeconds", "SOUK_ACCESS_TOKEN_SECONDS", "-", "access token lifetime (default 86400, as in Apple's example)"),
        ("refreshTokenSeconds", "SOUK_REFRESH_TOKEN_SECONDS", "-", "refresh token lifetime (default 7776000, 90 days)"),
        ("authorizationCodeSeconds", "SOUK_AUTHORIZATION_CODE_SECONDS", "-", "authorization code lifetime (default 60)"),
        ("allowPlainPkce", "SOUK_ALLOW_PLAIN_PKCE", "-", "accept code_challenge_method=plain (default true)"),
        ("signUp", "SOUK_SIGN_UP", "-", "let people create accounts at /signup (default false)"),
        ("consoleRequiresTwoFactor", "SOUK_CONSOLE_REQUIRES_TWO_FACTOR", "-", "support and operators see only the two-factor enrolment page until it is on (default true; serve --demo turns it off)"),
        ("reviewNewVersions", "SOUK_REVIEW_NEW_VERSIONS", "-", "versions developers upload wait in review until an operator approves them (default true)"),
        ("commissionPercent", "SOUK_COMMISSION_PERCENT", "-", "the marketplace's share of developers' sales in percent, 0–100 (default 15; per organisation overridable)"),
        ("reportingCurrency", "SOUK_REPORTING_CURRENCY", "-", "ISO 4217 code metrics are converted into with the rates of `souk rates set` (default USD)"),
        ("updatesPollingHours", "SOUK_UPDATES_POLLING_HOURS", "-", "hours between update checks, at least 24 (default 24)"),
        ("catalogRefreshMs", "SOUK_CATALOG_REFRESH_MS", "-", "how often a process looks for catalog and key changes made elsewhere (default 1000)"),
        ("tokenCacheEntries", "SOUK_TOKEN_CACHE_ENTRIES", "-", "most access tokens each process holds in memory; when full the least recently used makes room (default 100000)"),
        ("entitlementCacheEntries", "SOUK_ENTITLEMENT_CACHE_ENTRIES", "-", "most (account, app) purchase lists each process holds in memory for entitlement checks; when full the least recently used makes room (default 100000)"),
        ("cleanupIntervalSeconds", "SOUK_CLEANUP_INTERVAL_SECONDS", "-", "seconds between sweeps of expired rows, 0 for none (default 900; one process sweeps at a time)"),
        ("metricsRollupIntervalSeconds", "SOUK_METRICS_ROLLUP_INTERVAL_SECONDS", "-", "seconds between passes of the daily metrics rollup, 0 for none (default 300; one process computes at a time)"),
        ("licenseIssuer", "SOUK_LICENSE_ISSUER", "-", "development (default; Souk's documented format) or sidecar (Apple's SDK behind an HTTP service)"),
        ("licenseSidecarUrl", "SOUK_LICENSE_SIDECAR_URL", "-", "base URL of the license sidecar (with licenseIssuer=sidecar)"),
        ("licenseSidecarToken", "SOUK_LICENSE_SIDECAR_TOKEN", "-", "bearer token Souk sends to the sidecar"),
        ("licenseHoursPublic", "SOUK_LICENSE_HOURS_PUBLIC", "-", "license lifetime for public apps, in hours (default 720)"),
        ("licenseHoursAccount", "SOUK_LICENSE_HOURS_ACCOUNT", "-", "license lifetime for apps that need an account, in hours (default 48)"),
        ("deviceLimit", "SOUK_DEVICE_LIMIT", "-", "most devices with live licenses per account, 0 for none (default 0)"),
        ("ascWebhookSecret", "SOUK_ASC_WEBHOOK_SECRET", "-", "shared secret of the App Store Connect webhook (unset: the webhook answers 404)"),
        ("ascBaseUrl", "SOUK_ASC_BASE_URL", "-", "App Store Connect API base URL (default https://api.appstoreconnect.apple.com)"),
        ("ascKeyId", "SOUK_ASC_KEY_ID", "-", "App Store Connect API key id, to download packages"),
        ("ascIssuerId", "SOUK_ASC_ISSUER_ID", "-", "App Store Connect API issuer id"),
        ("ascPrivateKey", "SOUK_ASC_PRIVATE_KEY", "-", "path of the App Store Connect API key (.p8)"),
        ("trustedProxies", "SOUK_TRUSTED_PROXIES", "-", "comma-separated IPv4/IPv6 CIDR ranges of reverse proxies whose X-Forwarded-For names the client (default none: the header is ignored)"),
        ("metricsToken", "SOUK_METRICS_TOKEN", "-", "secret bearer token GET /metrics requires, at least 16 characters (default none: /metrics is open)"),
        ("maxBodyBytes", "SOUK_MAX_BODY_BYTES", "-", "largest request body Souk reads, answered 413 beyond; console uploads have their own limits (default 1048576)"),
        ("downloadsVia", "SOUK_DOWNLOADS_VIA", "-", "souk (default: Souk sends package and content bytes) or nginx (X-Accel-Redirect to xAccelPrefix; docs/deploy.md)"),
        ("xAccelPrefix", "SOUK_X_ACCEL_PREFIX", "-", "nginx internal location serving <dataDir>/blobs/, with downloadsVia nginx (default /_souk_blobs/)"),
        ("blobStore", "SOUK_BLOB_STORE", "-", "filesystem (default: blobs in <dataDir>/blobs) or s3 (an S3-compatible object store; downloads by presigned redirect)"),
        ("s3Endpoint", "SOUK_S3_ENDPOINT", "-", "the object store's scheme and host, path-style (such as https://s3.eu-west-1.amazonaws.com), with blobStore s3"),
        ("s3Bucket", "SOUK_S3_BUCKET", "-", "the bucket, created by the operator, with blobStore s3"),
        ("s3Region", "SOUK_S3_REGION", "-", "the region signatures name (default us-east-1)"),
        ("s3AccessKeyId", "SOUK_S3_ACCESS_KEY_ID", "-", "the access key id, with blobStore s3"),
        ("s3SecretAccessKey", "SOUK_S3_SECRET_ACCESS_KEY", "-", "the secret access key, with blobStore s3; never printed"),
        ("scheduledExports", "SOUK_SCHEDULED_EXPORTS", "-", "write each developer organisation's apps' purchases and events of every day to a bucket, with the s3… connection settings (default false; docs/metrics.md)"),
        ("exportsBucket", "SOUK_EXPORTS_BUCKET", "-", "the bucket of the scheduled exports (default s3Bucket)"),
        ("exportsPrefix", "SOUK_EXPORTS_PREFIX", "-", "the first part of the scheduled exports' keys (default exports)"),
        ("commerceProviderName", "SOUK_COMMERCE_PROVIDER_NAME", "-", "payment provider name in the product feed's type.value (default souk)"),
        ("appleRootCertificates", "SOUK_APPLE_ROOT_CERTIFICATES", "-", "comma-separated DER certificate paths trusted in addition to the built-in Apple Root CA - G3"),
        ("transferPolicy", "SOUK_TRANSFER_POLICY", "-", "a purchase another account owns: transfer (default), transfer-if-inactive or keep"),
        ("storeIntakeWaitMs", "SOUK_STORE_INTAKE_WAIT_MS", "-", "how long an intake waits for a store before answering 202 (default 3000)"),
        ("googlePlayBaseUrl", "SOUK_GOOGLE_PLAY_BASE_URL", "-", "Android Publisher API scheme and host (default https://androidpublisher.googleapis.com)"),
        ("googleOauthTokenUrl", "SOUK_GOOGLE_OAUTH_TOKEN_URL", "-", "Google's OAuth token URL for service accounts, a full URL (default https://oauth2.googleapis.com/token)"),
        ("googlePushCertsUrl", "SOUK_GOOGLE_PUSH_CERTS_URL", "-", "Google's OIDC keys (JWKS) for RTDN push JWTs, a full URL (default https://www.googleapis.com/oauth2/v3/certs)"),
        ("amazonRvsBaseUrl", "SOUK_AMAZON_RVS_BASE_URL", "-", "Amazon RVS scheme and host (default https://appstore-sdk.amazon.com)"),
        ("amazonRvsSandboxBaseUrl", "SOUK_AMAZON_RVS_SANDBOX_BASE_URL", "-", "Amazon RVS for sandbox purchases; Souk adds /sandbox/version/1.0/… (default https://appstore-sdk.amazon.com)"),
        ("rokuBaseUrl", "SOUK_ROKU_BASE_URL", "-", "Roku Pay web services scheme and host (default https://apipub.roku.com)"),
        ("amazonSnsCertUrlPattern", "SOUK_AMAZON_SNS_CERT_URL_PATTERN", "-", "regular expression an Amazon SNS SigningCertURL or SubscribeURL must match to be fetched (default ^https://sns\\.[a-z0-9-]+\\.amazonaws\\.com/)"),
        ("appStoreServerApiBaseUrl", "SOUK_APP_STORE_SERVER_API_BASE_URL", "-", "App Store Server API, production (default https://api.storekit.apple.com)"),
        ("appStoreServerApiSandboxBaseUrl", "SOUK_APP_STORE_SERVER_API_SANDBOX_BASE_URL", "-", "App Store Server API, sandbox (default https://api.storekit-sandbox.apple.com)"),
        ("storeRetryBaseMs", "SOUK_STORE_RETRY_BASE_MS", "-", "first back-off of a failed store call, doubling with jitter; also paces acknowledgements and re-checks (default 1000)"),
        ("storeRetryMaxMs", "SOUK_STORE_RETRY_MAX_MS", "-", "longest back-off between store calls (default 30000)"),
        ("webhookRetryBaseMs", "SOUK_WEBHOOK_RETRY_BASE_MS", "-", "first back-off of a failed webhook delivery, doubling, for 3 days (default 60000)"),
        ("webhookRetryMaxMs", "SOUK_WEBHOOK_RETRY_MAX_MS", "-", "longest back-off between webhook deliveries (default 3600000)"),
        ("reconcileIntervalSeconds", "SOUK_RECONCILE_INTERVAL_SECONDS", "-", "how often subscriptions due for a re-check are asked about at their store (default 300)"),
        ("paymentProcessor", "SOUK_PAYMENT_PROCESSOR", "-", "who takes the marketplace's own sales: none (the default: paid apps and plans are not for sale, checkout answers 503), development (no money moves: every order is paid at once; serve --demo chooses it) or stripe; sandbox accounts always use development"),
        ("stripeBaseUrl", "SOUK_STRIPE_BASE_URL", "-", "Stripe API scheme and host (default https://api.stripe.com)"),
        ("stripeSecretKey", "SOUK_STRIPE_SECRET_KEY", "-", "Stripe secret key (sk_…), required with paymentProcessor stripe; never printed"),
        ("stripeWebhookSecret", "SOUK_STRIPE_WEBHOOK_SECRET", "-", "signing secret of POST /webhooks/stripe (whsec_…); unset: the endpoint answers 404"),
    ]

    /// A configuration for tests and tools: in-memory-free defaults rooted at `dataDir`.
    public init(dataDir: String, hostname: String = "127.0.0.1", port: Int = 8080, publicURL: String? = nil,
                database: DatabaseLocation? = nil, logLevel: Logger.Level = .info, tls: TLSFiles? = nil) {
        self.dataDir = dataDir
        self.hostname = hostname
        self.port = port
        self.publicURL = publicURL ?? "http://\(hostname):\(port)"
        self.database = database ?? .sqlite(path: dataDir + "/souk.sqlite")
        self.logLevel = logLevel
        self.tls = tls
    }

    /// Reads and validates the settings. `flags` holds command-line values by config-file key.
    public static func load(flags: [String: String], environment: [String: String] = ProcessInfo.processInfo.environment,
                            configFile: String? = nil) async throws -> SoukConfig {
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map {
                (AbsoluteConfigKey([$0.key]), ConfigValue(.string($0.value), isSecret: $0.key == "databaseUrl"))
            })),
            EnvironmentVariablesProvider(
                environmentVariables: Self.providerEnvironment(environment),
                secretsSpecifier: .specific(["DATABASE_URL", "ASC_WEBHOOK_SECRET", "LICENSE_SIDECAR_TOKEN", "METRICS_TOKEN",
                                             "S3_SECRET_ACCESS_KEY", "S3SECRET_ACCESS_KEY", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"])
            ),
        ]
        if let path = configFile ?? environment["SOUK_CONFIG"] {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(path)))
            } catch {
                throw ConfigError(setting: "config file (SOUK_CONFIG, --config)", value: path, reason: "cannot be read as a JSON object: \(error)")
            }
        }
        let reader = Settings(reader: ConfigReader(providers: providers))

        let dataDir = try await reader.string("dataDir") ?? "./souk-data"
        guard !dataDir.isEmpty else { throw reader.error("dataDir", dataDir, "must not be empty") }
        let hostname = try await reader.string("hostname") ?? "127.0.0.1"
        let portText = try await reader.string("port") ?? "8080"
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw reader.error("port", portText, "must be a number from 0 to 65535")
        }
        var config = SoukConfig(dataDir: dataDir, hostname: hostname, port: port)
        if let url = try await reader.string("publicUrl") {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", components.host?.isEmpty == false,
                  components.query == nil, components.fragment == nil else {
                throw reader.error("publicUrl", url, "must be an absolute http:// or https:// URL without query or fragment")
            }
            config.publicURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        if let url = try await reader.string("databaseUrl") {
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"),
                  let components = URLComponents(string: url), components.host?.isEmpty == false,
                  components.user?.isEmpty == false else {
                throw reader.error("databaseUrl", "(hidden)", "must be a postgres://user[:password]@host[:port]/database URL")
            }
            config.database = .postgres(url: url)
        }
        if let level = try await reader.string("logLevel") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw reader.error("logLevel", level, "must be one of trace, debug, info, notice, warning, error, critical")
            }
            config.logLevel = parsed
        }
        let certificate = try await reader.string("tlsCert")
        let key = try await reader.string("tlsKey")
        switch (certificate, key) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            for (name, path) in [("tlsCert", certificate), ("tlsKey", key)] where !FileManager.default.isReadableFile(atPath: path) {
                throw reader.error(name, path, "is not a readable file")
            }
            config.tls = TLSFiles(certificatePath: certificate, keyPath: key)
        case (nil, _):
            throw reader.error("tlsCert", "(missing)", "is required when tlsKey is set")
        case (_, nil):
            throw reader.error("tlsKey", "(missing)", "is required when tlsCert is set")
        }
        config.tokenLifetimes.accessToken = .seconds(try await reader.wholeNumber("accessTokenSeconds", default: 86_400, range: 60...31_536_000))
        config.tokenLifetimes.refreshToken = .seconds(try await reader.wholeNumber("refreshTokenSeconds", default: 7_776_000, range: 3600...315_360_000))
        config.tokenLifetimes.authorizationCode = .seconds(try await reader.wholeNumber("authorizationCodeSeconds", default: 60, range: 10...600))
        if let plain = try await reader.string("allowPlainPkce") {
            guard let value = Bool(plain.lowercased()) else { throw reader.error("allowPlainPkce", plain, "must be true or false") }
            config.allowPlainPKCE = value
        }
        config.updatesPollingHours = try await reader.wholeNumber("updatesPollingHours", default: 24, range: 24...8760)
        config.databasePoolWaitSeconds = try await reader.wholeNumber("databasePoolWaitSeconds", default: 10, range: 1...300)
        config.catalogRefreshMilliseconds = try await reader.wholeNumber("catalogRefreshMs", default: 1000, range: 0...60_000)
        config.tokenCacheEntries = try await reader.wholeNumber("tokenCacheEntries", default: 100_000, range: 1...100_000_000)
        config.entitlementCacheEntries = try await reader.wholeNumber("entitlementCacheEntries", default: 100_000, range: 1...100_000_000)
        config.cleanupIntervalSeconds = try await reader.wholeNumber("cleanupIntervalSeconds", default: 900, range: 0...604_800)
        config.metricsRollupIntervalSeconds = try await reader.wholeNumber("metricsRollupIntervalSeconds", default: 300, range: 0...86_400)
        if let issuer = try await reader.string("licenseIssuer") {
            guard ["development", "sidecar"].contains(issuer) else { throw reader.error("licenseIssuer", issuer, "must be development or sidecar") }
            config.licensing.issuer = issuer
        }
        if let url = try await reader.string("licenseSidecarUrl") {
            guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil else {
                throw reader.error("licenseSidecarUrl", url, "must be an http(s) URL")
            }
            config.licensing.sidecarURL = url
        }
        if config.licensing.issuer == "sidecar", config.licensing.sidecarURL == nil {
            throw reader.error("licenseSidecarUrl", "(missing)", "is required when licenseIssuer is sidecar")
        }
        config.licensing.sidecarToken = try await reader.string("licenseSidecarToken")
        config.licensing.publicHours = try await reader.wholeNumber("licenseHoursPublic", default: 720, range: 24...87_600)
        config.licensing.accountHours = try await reader.wholeNumber("licenseHoursAccount", default: 48, range: 24...87_600)
        config.licensing.deviceLimit = try await reader.wholeNumber("deviceLimit", default: 0, range: 0...1000)
        if let secret = try await reader.string("ascWebhookSecret") {
            guard secret.count >= 16 else { throw reader.error("ascWebhookSecret", "(hidden)", "must be at least 16 characters") }
            config.appStoreConnect.webhookSecret = secret
        }
        if let base = try await reader.string("ascBaseUrl") {
            guard let url = URL(string: base), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw reader.error("ascBaseUrl", base, "must be an http(s) URL")
            }
            config.appStoreConnect.baseURL = base
        }
        config.appStoreConnect.keyId = try await reader.string("ascKeyId")
        config.appStoreConnect.issuerId = try await reader.string("ascIssuerId")
        if let path = try await reader.string("ascPrivateKey") {
            guard FileManager.default.isReadableFile(atPath: path) else { throw reader.error("ascPrivateKey", path, "is not a readable file") }
            config.appStoreConnect.privateKeyPath = path
        }
        if let ranges = try await reader.stringList("trustedProxies") {
            config.trustedProxies = try ranges.map { text in
                guard let network = IPNetwork(text) else {
                    throw reader.error("trustedProxies", text, "must be IPv4 or IPv6 addresses or CIDR ranges, such as 10.0.0.0/8,fd00::/8")
                }
                return network
            }
        }
        if let token = try await reader.string("metricsToken") {
            guard token.count >= 16 else { throw reader.error("metricsToken", "(hidden)", "must be at least 16 characters") }
            config.metricsToken = token
        }
        config.maxBodyBytes = try await reader.wholeNumber("maxBodyBytes", default: 1 << 20, range: 1024...(1 << 30))
        if let via = try await reader.string("downloadsVia") {
            guard let value = DownloadsVia(rawValue: via) else { throw reader.error("downloadsVia", via, "must be souk or nginx") }
            config.downloadsVia = value
        }
        if let prefix = try await reader.string("xAccelPrefix") {
            guard prefix.hasPrefix("/"), prefix.hasSuffix("/"), prefix.count > 2, !prefix.contains(".."),
                  prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_-".contains($0)) }) else {
                throw reader.error("xAccelPrefix", prefix, "must be a path such as /_souk_blobs/: starting and ending with /, letters, digits, _ and - only")
            }
            config.xAccelPrefix = prefix
        }
        config.objectStore = try await reader.objectStore()
        config.scheduledExports = try await reader.scheduledExports()
        if let name = try await reader.string("commerceProviderName") {
            guard !name.isEmpty, name.count <= 100 else { throw reader.error("commerceProviderName", name, "must be 1 to 100 characters") }
            config.commerce.providerName = name
        }
        if let paths = try await reader.stringList("appleRootCertificates") {
            for path in paths where !FileManager.default.isReadableFile(atPath: path) {
                throw reader.error("appleRootCertificates", path, "is not a readable file")
            }
            config.commerce.appleRootCertificates = paths
        }
        if let policy = try await reader.string("transferPolicy") {
            guard let value = TransferPolicy(rawValue: policy) else {
                throw reader.error("transferPolicy", policy, "must be transfer, transfer-if-inactive or keep")
            }
            config.commerce.transferPolicy = value
        }
        config.commerce.verifyTimeoutMilliseconds = try await reader.wholeNumber("storeIntakeWaitMs", default: 3000, range: 0...60_000)
        try await reader.readStoreSettings(into: &config.commerce)
        if let signUp = try await reader.string("signUp") {
            guard let value = Bool(signUp.lowercased()) else { throw reader.error("signUp", signUp, "must be true or false") }
            config.signUpEnabled = value
        }
        if let required = try await reader.string("consoleRequiresTwoFactor") {
            guard let value = Bool(required.lowercased()) else {
                throw reader.error("consoleRequiresTwoFactor", required, "must be true or false")
            }
            config.consoleRequiresTwoFactor = value
        }
        if let review = try await reader.string("reviewNewVersions") {
            guard let value = Bool(review.lowercased()) else { throw reader.error("reviewNewVersions", review, "must be true or false") }
            config.reviewNewVersions = value
        }
        config.commissionPercent = try await reader.wholeNumber("commissionPercent", default: 15, range: 0...100)
        if let currency = try await reader.string("reportingCurrency") {
            guard ISO4217.isCurrency(currency) else { throw reader.error("reportingCurrency", currency, "must be an ISO 4217 code such as USD or EUR") }
            config.reportingCurrency = currency
        }
        return config
    }

    /// `SOUK_*` variables without their prefix, as the provider looks keys up: it spells `s3Endpoint`
    /// `S3ENDPOINT` (no break after a digit), so each documented name that differs from its
    /// spelling (`SOUK_S3_ENDPOINT`) is given under that spelling too.
    package static func providerEnvironment(_ environment: [String: String]) -> [String: String] {
        var result = Dictionary(uniqueKeysWithValues: environment.compactMap { key, value in
            key.hasPrefix("SOUK_") ? (String(key.dropFirst(5)), value) : nil
        })
        for entry in settings {
            let spelled = providerSpelling(entry.key)
            if let value = environment[entry.env], spelled != String(entry.env.dropFirst(5)), result[spelled] == nil {
                result[spelled] = value
            }
        }
        return result
    }

    /// How the environment provider spells a key: `_` between a lower-case letter and an upper-case
    /// one, then all upper case.
    package static func providerSpelling(_ key: String) -> String {
        var result = ""
        var previous: Character?
        for character in key {
            if let previous, previous.isLowercase, character.isUppercase { result.append("_") }
            result.append(character)
            previous = character
        }
        return result.uppercased()
    }

    /// Paths inside the data folder.
    public var sqlitePath: String { dataDir + "/souk.sqlite" }
    public var blobsDir: String { dataDir + "/blobs" }
    public var keysDir: String { dataDir + "/keys" }
    public var workDir: String { dataDir + "/tmp" }
    public var catalogRefreshInterval: Duration { .milliseconds(catalogRefreshMilliseconds) }
}

/// A setting that stops start-up, naming the setting, the value and what is wrong.
public struct ConfigError: Error, CustomStringConvertible {
    public var setting: String
    public var value: String
    public var reason: String

    public var description: String { "invalid setting \(setting) = \(value): \(reason)" }
}

/// Reads strings from the providers, turning numbers from a JSON file into strings and errors
/// into `ConfigError`s that name the setting.
private struct Settings {
    package let reader: ConfigReader

    package func string(_ key: String) async throws -> String? {
        do {
            if let text = try await reader.fetchString(forKey: ConfigKey(key)) { return text }
            return nil
        } catch {
            if let number = try? await reader.fetchInt(forKey: ConfigKey(key)) { return String(number) }
            throw self.error(key, "?", "has the wrong type")
        }
    }

    /// A list: comma-separated text (environment, flags, file) or a JSON array of strings (file).
    /// nil when unset; empty entries are dropped.
    package func stringList(_ key: String) async throws -> [String]? {
        let items: [String]
        if let text = try? await reader.fetchString(forKey: ConfigKey(key)) {
            items = text.split(separator: ",").map { String($0) }
        } else if let array = try? await reader.fetchStringArray(forKey: ConfigKey(key)) {
            items = array
        } else if let text = try await string(key) {
            // Another type (a number in the file): `string` converts it or names the setting in its error.
            items = [text]
        } else {
            return nil
        }
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A whole number (of seconds, or of the unit the setting names) within `range`.
    package func wholeNumber(_ key: String, default value: Int, range: ClosedRange<Int>) async throws -> Int {
        guard let text = try await string(key) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw error(key, text, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// An http(s) URL with a host; nil when unset.
    package func httpURL(_ key: String) async throws -> String? {
        guard let text = try await string(key) else { return nil }
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw error(key, text, "must be an http(s) URL")
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// The stores' base URLs, store retries, webhook retries and reconciliation.
    package func readStoreSettings(into commerce: inout SoukConfig.CommerceSettings) async throws {
        var stores = commerce.stores
        if let url = try await httpURL("googlePlayBaseUrl") { stores.googlePlayBaseURL = url }
        if let url = try await httpURL("googleOauthTokenUrl") { stores.googleOAuthTokenURL = url }
        if let url = try await httpURL("googlePushCertsUrl") { stores.googlePushCertsURL = url }
        if let url = try await httpURL("amazonRvsBaseUrl") { stores.amazonRVSBaseURL = url }
        if let url = try await httpURL("amazonRvsSandboxBaseUrl") { stores.amazonRVSSandboxBaseURL = url }
        if let url = try await httpURL("rokuBaseUrl") { stores.rokuBaseURL = url }
        if let pattern = try await string("amazonSnsCertUrlPattern") {
            guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                throw error("amazonSnsCertUrlPattern", pattern, "must be a regular expression")
            }
            stores.amazonSNSCertURLPattern = pattern
        }
        if let url = try await httpURL("appStoreServerApiBaseUrl") { stores.appStoreServerAPIBaseURL = url }
        if let url = try await httpURL("appStoreServerApiSandboxBaseUrl") { stores.appStoreServerAPISandboxBaseURL = url }
        let base = try await wholeNumber("storeRetryBaseMs", default: 1000, range: 1...3_600_000)
        let max = try await wholeNumber("storeRetryMaxMs", default: 30_000, range: 1...86_400_000)
        guard max >= base else { throw error("storeRetryMaxMs", String(max), "must be at least storeRetryBaseMs (\(base))") }
        stores.retry.base = .milliseconds(base)
        stores.retry.max = .milliseconds(max)
        commerce.stores = stores
        let webhookBase = try await wholeNumber("webhookRetryBaseMs", default: 60_000, range: 1...86_400_000)
        let webhookMax = try await wholeNumber("webhookRetryMaxMs", default: 3_600_000, range: 1...86_400_000)
        guard webhookMax >= webhookBase else {
            throw error("webhookRetryMaxMs", String(webhookMax), "must be at least webhookRetryBaseMs (\(webhookBase))")
        }
        commerce.webhookRetryBase = .milliseconds(webhookBase)
        commerce.webhookRetryMax = .milliseconds(webhookMax)
        commerce.reconcileIntervalSeconds = try await wholeNumber("reconcileIntervalSeconds", default: 300, range: 1...86_400)
        if let processor = try await string("paymentProcessor") {
            guard ["none", "development", "stripe"].contains(processor) else {
                throw error("paymentProcessor", processor, "must be none, development or stripe")
            }
            commerce.paymentProcessor = processor
        }
        if let url = try await httpURL("stripeBaseUrl") { commerce.stripeBaseURL = url }
        commerce.stripeSecretKey = try await string("stripeSecretKey")
        commerce.stripeWebhookSecret = try await string("stripeWebhookSecret")
        if commerce.paymentProcessor == "stripe", commerce.stripeSecretKey == nil {
            throw error("stripeSecretKey", "(missing)", "is required when paymentProcessor is stripe")
        }
    }

    /// `blobStore` and the `s3…` settings: nil for the file system.
    package func objectStore() async throws -> S3ObjectStore.Settings? {
        let kind = try await string("blobStore") ?? "filesystem"
        guard kind == "s3" else {
            guard kind == "filesystem" else { throw error("blobStore", kind, "must be filesystem or s3") }
            return nil
        }
        guard let endpoint = try await httpURL("s3Endpoint") else { throw error("s3Endpoint", "(missing)", "is required when blobStore is s3") }
        guard let bucket = try await string("s3Bucket") else { throw error("s3Bucket", "(missing)", "is required when blobStore is s3") }
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw error("s3Bucket", bucket, "must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots and hyphens")
        }
        let region = try await string("s3Region") ?? "us-east-1"
        guard !region.isEmpty, region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw error("s3Region", region, "must be a region name such as eu-west-1")
        }
        guard let keyId = try await string("s3AccessKeyId"), !keyId.isEmpty else {
            throw error("s3AccessKeyId", "(missing)", "is required when blobStore is s3")
        }
        guard let secret = try await string("s3SecretAccessKey"), !secret.isEmpty else {
            throw error("s3SecretAccessKey", "(missing)", "is required when blobStore is s3")
        }
        return S3ObjectStore.Settings(endpoint: endpoint, bucket: bucket, region: region, accessKeyId: keyId, secretAccessKey: secret)
    }

    /// `scheduledExports` and its bucket and prefix; the connection is the `s3…` settings'.
    package func scheduledExports() async throws -> ScheduledExportSettings? {
        guard let enabled = try await string("scheduledExports") else { return nil }
        guard let on = Bool(enabled.lowercased()) else { throw error("scheduledExports", enabled, "must be true or false") }
        guard on else { return nil }
        let need = "is required when scheduledExports is true"
        guard let endpoint = try await httpURL("s3Endpoint") else { throw error("s3Endpoint", "(missing)", need) }
        let exportsBucket = try await string("exportsBucket"), blobBucket = try await string("s3Bucket")
        guard let bucket = exportsBucket ?? blobBucket else { throw error("exportsBucket", "(missing)", need + " (or s3Bucket)") }
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw error("exportsBucket", bucket, "must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots and hyphens")
        }
        let region = try await string("s3Region") ?? "us-east-1"
        guard let keyId = try await string("s3AccessKeyId"), !keyId.isEmpty else { throw error("s3AccessKeyId", "(missing)", need) }
        guard let secret = try await string("s3SecretAccessKey"), !secret.isEmpty else { throw error("s3SecretAccessKey", "(missing)", need) }
        let prefix = (try await string("exportsPrefix") ?? "exports").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard prefix.count <= 200, prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/-_.".contains($0)) }), !prefix.contains("..") else {
            throw error("exportsPrefix", prefix, "must be letters, digits, /, -, _ and . only (at most 200)")
        }
        return ScheduledExportSettings(store: S3ObjectStore.Settings(endpoint: endpoint, bucket: bucket, region: region, accessKeyId: keyId,
                                                                     secretAccessKey: secret), prefix: prefix)
    }

    package func error(_ key: String, _ value: String, _ reason: String) -> ConfigError {
        let entry = SoukConfig.settings.first { $0.key == key }
        let name = entry.map { $0.flag == "-" ? "\(key) (\($0.env))" : "\(key) (\($0.env), \($0.flag))" } ?? key
        return ConfigError(setting: name, value: value, reason: reason)
    }
}
