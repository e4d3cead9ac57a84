import FluentKit

/// Every migration, in the order it was added. Migrations are only ever appended:
/// a mistake is fixed by a new step in the next numbered folder.
enum SoukMigrations {
    static let all: [any Migration] = [
        CreateMarketplace(),
        CreateAccount(),
        CreateApp(),
        CreateAppVersion(),
        CreatePackageFile(),
        // 002: the OAuth 2.0 authorization server
        CreateOAuthCode(),
        CreateOAuthToken(),
        CreateInstallGrant(),
        CreateLoginThrottle(),
        CreateWebSession(),
        CreateInstall(),
        // 003: MarketplaceKit app data
        CreateAppOverride(),
        // 004: signing-key rotation, the catalog change log, App Store Connect events
        CreateInstallVerificationKey(),
        CreateCatalogChangeLog(),
        CreateAppStoreConnectEvent(),
        // 005: licensing
        CreateLicense(),
        // 006: the fixes of the outside review
        UpdateInstallOnePerDevice(),
        UpdateAppVersionAddWithdrawnReason(),
        CreateLookupIndexesAndLeases(),
        UpdateLoginThrottleAddBackoff(),
        UpdateLicenseAddIndexes(),
        // 007: in-app commerce
        CreateCommerceCatalog(),
        UpdateAccountAddSandbox(),
        CreatePurchases(),
        CreateAuthRevision(),
        // 008: every store, every change
        UpdatePurchasesAddLifecycle(),
        CreateStoreOperations(),
        CreateStoreNotifications(),
        CreateWebhooks(),
        CreateEntitlementGrants(),
        // 009: every store, every change, continued
        AddStoreSettings(),
        // 010: hosted content packages
        CreateHostedContent(),
        // 011: what an app costs
        AddAppPricing(),
        // 012: the marketplace's own sales
        CreateMarketplaceOrders(),
        // 013: membership plans and the sandbox clock
        CreateMarketplaceSubscriptions(),
        // 014: membership plans through Stripe
        UpdateMarketplaceSubscriptionsAddStripe(),
        CreateMarketplaceSubscriptionCharges(),
        // 016: a plan invoice's PaymentIntent, for refunds under Stripe's basil API
        UpdateMarketplaceSubscriptionChargesAddPaymentRef(),
        // 017: the storefront's app media, category, what's new and featured apps
        AddAppMedia(),
        // 018: the operator console's roles, TOTP and audit log
        AddOperatorRolesAndTOTP(),
        CreateAuditLog(),
        // 019: the dashboard's counts per day
        CreateDailyCounts(),
        // 020: an app's versions by app (for the load test, docs/benchmarks.md)
        AddAppVersionsAppIndex(),
        // 021: account tokens, which tie a store purchase to the Souk account that made it
        CreateAccountTokens(),
        // 022: password reset links made in the console
        CreatePasswordResetLinks(),
        // 023-024: one live or pending membership plan per account and plan group
        UpdateMarketplaceSubscriptionsAddPlanGroup(),
        AddMarketplaceSubscriptionsOneLivePerGroup(),
        // 025: what a consumable's refund took from its balance, for a reversal
        UpdatePurchasesAddRefundDebited(),
        // 026: the console's catalog reviews, kept by digest until applied
        CreateCatalogReviews(),
        // 027-028: registered OAuth clients and the device authorization grant
        CreateOAuthClients(),
        CreateDeviceAuthorizations(),
        // 030: OpenID Connect's nonce and authentication time, from the code to the ID token
        UpdateOAuthCodesAddNonceAndAuthTime(),
        UpdateOAuthTokensAddAuthTime(),
        // 033-035: Apple's refund requests and Souk's answers, refund shares and billing plans on
        // purchases, renewal-date extensions
        CreateAppleConsumptionRequests(),
        UpdatePurchasesAddAppleTerms(),
        CreateAppleRenewalExtensions(),
        // 037: how far each app's Google Play voided purchases were read
        CreateGoogleVoidedPositions(),
        // 038: the purchase option and offer of a Google Play one-time product (productsv2)
        UpdatePurchasesAddGoogleOffer(),
        // 043: autovacuum of `licenses` tuned for renewals (PostgreSQL)
        UpdateLicensesSetAutovacuum(),
        // 044: developer organisations, members and API keys; who owns an app and a catalog; review
        CreateDevelopers(),
        // 045: store credentials uploaded and sealed at rest
        CreateStoreCredentials(),
        // 046: the operator's exchange rates for metrics
        CreateExchangeRates(),
        // 047: what a store transaction cost, for metrics
        UpdatePurchasesAddPrice(),
        // 048: the daily metrics rollup and how far each app's was computed
        CreateMetricRollups(),
        // 049: the raw exports' indexes and the scheduled exports' record of days written
        AddExportIndexes(),
        CreateScheduledExports(),
        // 050: where a store transaction was bought, and the rollup's per-country numbers
        UpdatePurchasesAddCountry(),
        UpdateMetricRollupsAddCountry(),
        // 051: the metrics rollup's cohort table
        CreateMetricCohorts(),
        // 052: licences name their device by a row of `devices`
        UpdateLicensesKeyByDevice(),
    ]
}
