/// Every template Souk renders, and every partial those include, by name. `Pages` checks at start
/// that each one is registered (`Pages.init(templates:)`), so a missing template stops the server
/// with its name instead of rendering an empty page; handlers name a page by its case, never by a
/// string.
enum PageTemplate: String, CaseIterable, Sendable {
    // Pages.
    case account
    case activate
    case activateConfirm = "activate-confirm"
    case activateDone = "activate-done"
    case adminApp = "admin-app"
    case adminAppStoreOrder = "admin-app-store-order"
    case adminApps = "admin-apps"
    case adminAudit = "admin-audit"
    case adminCatalog = "admin-catalog"
    case adminCatalogReview = "admin-catalog-review"
    case adminCatalogTooLarge = "admin-catalog-too-large"
    case adminCatalogs = "admin-catalogs"
    case adminClients = "admin-clients"
    case adminCredentials = "admin-credentials"
    case adminDashboard = "admin-dashboard"
    case adminExtensionConfirm = "admin-extension-confirm"
    case adminExtensions = "admin-extensions"
    case adminForbidden = "admin-forbidden"
    case adminIntegrations = "admin-integrations"
    case adminMetrics = "admin-metrics"
    case adminPayoutStatement = "admin-payout-statement"
    case adminPeople = "admin-people"
    case adminPerson = "admin-person"
    case adminProduct = "admin-product"
    case adminRecoveryCodes = "admin-recovery-codes"
    case adminReviewQueue = "admin-review-queue"
    case adminReviewVersion = "admin-review-version"
    case adminSecurity = "admin-security"
    case app
    case catalog
    case `continue`
    case developerApp = "developer-app"
    case developerCatalog = "developer-catalog"
    case developerCatalogReview = "developer-catalog-review"
    case developerCatalogTooLarge = "developer-catalog-too-large"
    case developerCredentials = "developer-credentials"
    case developerForbidden = "developer-forbidden"
    case developerGrants = "developer-grants"
    case developerHome = "developer-home"
    case developerKeys = "developer-keys"
    case developerMetrics = "developer-metrics"
    case developerPayoutStatement = "developer-payout-statement"
    case developerPurchases = "developer-purchases"
    case developerRecoveryCodes = "developer-recovery-codes"
    case developerSales = "developer-sales"
    case developerSecurity = "developer-security"
    case developerWebhooks = "developer-webhooks"
    case error
    case home
    case install
    case licenseResolve = "license-resolve"
    case passwordReset = "password-reset"
    case passwordResetInvalid = "password-reset-invalid"
    case search
    case signIn = "sign-in"
    case signUp = "sign-up"
    case signinCode = "signin-code"
    // Partials (`{{> name}}`) and the layout's.
    case card
    case consoleApp = "console-app"
    case consoleNav = "console-nav"
    case consoleCatalog = "console-catalog"
    case consoleCatalogForm = "console-catalog-form"
    case consoleCatalogReview = "console-catalog-review"
    case consoleRecoveryCodes = "console-recovery-codes"
    case consoleTwoFactor = "console-two-factor"
    case consolePager = "console-pager"
    case developerNav = "developer-nav"
    case image
    case metricsPage = "metrics-page"
    case metricsCohorts = "metrics-cohorts"
    case pager
    case payoutStatement = "payout-statement"
    case start
    case startPlain = "start-plain"
    case end
}
