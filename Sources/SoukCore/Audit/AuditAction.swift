/// What an audit entry records: the one list of actions the console, the `souk` commands, the
/// operations and the stores write (the audit log's `action` column holds `rawValue`). The raw
/// strings are stored in existing entries and are what `souk audit --action` and the console's
/// audit filter match, so a case's raw value never changes.
public enum AuditAction: String, Sendable, CaseIterable, Hashable {
    // Accounts and staff.
    case accountCreate = "account.create"
    case accountSetRole = "account.set-role"
    case accountDisable = "account.disable"
    case accountEnable = "account.enable"
    case accountSignOut = "account.sign-out"
    case accountResetPassword = "account.reset-password"
    case accountTOTPEnable = "account.totp-enable"
    case accountTOTPReset = "account.totp-reset"
    case accountDeviceLimit = "account.device-limit"
    case consoleRefused = "console.refused"
    case clientAdd = "client.add"
    case clientRemove = "client.remove"

    // Marketplace apps, packages and versions.
    case appCreate = "app.create"
    case appDetails = "app.details"
    case appMedia = "app.media"
    case appFeature = "app.feature"
    case appPrice = "app.price"
    case appRemove = "app.remove"
    case appTakedown = "app.takedown"
    case appReinstate = "app.reinstate"
    case appOverride = "app.override"
    case packageImport = "package.import"
    case packageKeyBlob = "package.key-blob"
    case versionWithdraw = "version.withdraw"
    case versionReinstate = "version.reinstate"
    case versionApprove = "version.approve"
    case versionReject = "version.reject"
    case marketplaceSet = "marketplace.set"
    case keyRotate = "key.rotate"
    case keyRetire = "key.retire"

    // In-app commerce.
    case catalogApply = "catalog.apply"
    case contentImport = "content.import"
    case webhookAdd = "webhook.add"
    case webhookRemove = "webhook.remove"
    case webhookRedeliver = "webhook.redeliver"
    case entitlementGrant = "entitlement.grant"
    case entitlementRevoke = "entitlement.revoke"
    case orderRefund = "order.refund"
    case planRefund = "plan.refund"
    case purchaseRefund = "purchase.refund"
    case purchaseRevoke = "purchase.revoke"
    case licenseRevoke = "license.revoke"
    case subscriptionsExtend = "subscriptions.extend"
    case subscriptionsExtendMass = "subscriptions.extend_mass"
    case storeCredentialSet = "store.credential-set"
    case storeCredentialRemove = "store.credential-remove"

    // Developer organisations.
    case developerCreate = "developer.create"
    case developerCommission = "developer.commission"
    case developerMemberAdd = "developer.member-add"
    case developerMemberRemove = "developer.member-remove"
    case developerKeyCreate = "developer.key-create"
    case developerKeyRevoke = "developer.key-revoke"
    case appSetDeveloper = "app.set-developer"
    case catalogSetDeveloper = "catalog.set-developer"

    // Metrics.
    case ratesSet = "rates.set"
}
