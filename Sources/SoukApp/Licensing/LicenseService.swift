import Foundation
import SoukCore
import SoukIntegrations
import SoukStore
import _CryptoExtras

/// Souk's licensing policy (spec §3): who gets a license for which app, for how long, on how many
/// devices, and which renewals are refused. The issuer only reads requests and builds blobs.
public struct LicenseService: Sendable {
    package let issuer: any LicenseIssuer
    package let store: LicenseStore
    package let payments: AppPayments
    package let catalog: CatalogStore
    /// The in-memory catalog the hot path reads apps from.
    package let catalogIndex: CatalogIndex
    package let ledger: InstallLedger
    /// `licensing`: durations and device limits.
    package let settings: SoukConfig.LicensingSettings
    package let keys: SoukKeys

    public init(runtime: SoukRuntime, issuer: any LicenseIssuer) {
        self.issuer = issuer
        store = LicenseStore(database: runtime.database)
        payments = AppPayments(runtime: runtime)
        catalog = runtime.catalog
        catalogIndex = runtime.catalogIndex
        ledger = InstallLedger(database: runtime.database)
        settings = runtime.config.licensing
        keys = runtime.keys
    }

    /// Why an app got no license (recorded in logs; the device only sees `unlicensedApps`).
    public typealias Refusal = LicenseRefusal

    public struct Issued: Sendable {
        public var license: [UInt8]
        public var unlicensed: [UInt64]
        public var refusals: [UInt64: Refusal]
    }

    package func duration(for app: CatalogApp) -> TimeInterval {
        TimeInterval((app.access == .account ? settings.accountHours : settings.publicHours) * 3600)
    }

    /// Opens the envelope with the encryption key; `LicenseCrypto.Undecryptable` for anything that
    /// does not decrypt.
    func open(_ request: [UInt8], licenseKey: [UInt8]) throws -> [UInt8] {
        try LicenseCrypto.open(request: request, licenseKey: licenseKey, with: keys.licenseEncryptionKey)
    }

    /// A dynamic license request (spec §3.1). The caller has applied the bearer rules; `clientId` is
    /// the OAuth client of the bearer token (the device, for the install ledger). Database errors are
    /// thrown, never turned into refusals.
    public func create(_ body: LicenseRequestBody, accountID: UUID?, clientId: String? = nil, now: Date = Date()) async throws -> Issued {
        let opaque = try open(body.licenseRequest, licenseKey: body.licenseKey)
        let ask = try await issuer.read(opaque, action: .create)
        let apps = try await catalogIndex.apps(body.apps.map(\.appleItemId))
        let account = try await accountID.asyncMap { try await catalog.people.account(id: $0) } ?? nil
        // A token of an account deleted since is treated like a disabled account.
        let asker: LicenseEligibility.Asker = accountID == nil ? .anonymous : .account(disabled: account?.disabled ?? true)
        var grants: [LicenseGrant] = []
        var refusals: [UInt64: Refusal] = [:]
        for (appleItemId, wanted) in body.apps where refusals[appleItemId] == nil && !grants.contains(where: { $0.appleItemId == appleItemId }) {
            let app = apps[appleItemId]
            let version: CatalogVersion
            switch LicenseEligibility.decide(app: app, requestedVersion: wanted.appleVersionId, asker: asker) {
            case .refused(let reason):
                refusals[appleItemId] = reason
                continue
            case .eligible(let eligible):
                version = eligible
            }
            guard let app else { continue }  // an eligible app is a known one
            let payment = try await payments.verdict(app, account: account)
            guard payment == .open else {
                refusals[appleItemId] = Refusal(payment)
                continue
            }
            // The key blob of the variant the device chose, only if it is this version's own.
            let match = try await wanted.assetPublicId.asyncMap {
                try await store.asset($0, appleItemId: appleItemId, appleVersionId: version.appleVersionId)
            }
            guard case .success(let keyBlob) = LicenseEligibility.keyBlob(asset: wanted.assetPublicId, match: match) else {
                refusals[appleItemId] = .assetNotInVersion
                continue
            }
            let duration = duration(for: app)
            switch try await grant(appleItemId: appleItemId, version: version, account: account, deviceId: ask.deviceId,
                                   duration: duration, now: now) {
            case .deviceLimitReached:
                refusals[appleItemId] = .deviceLimit
            case .issued(let record, _):
                grants.append(LicenseGrant(licenseId: record.licenseId, appleItemId: appleItemId, appleVersionId: version.appleVersionId,
                                           assetPublicId: wanted.assetPublicId, keyBlob: keyBlob, issuedAt: record.issuedAt, duration: duration))
            }
        }
        if let accountID, let clientId, !grants.isEmpty {
            // A license is where an install happens on the device's side (spec §0: exchange → license
            // → restore): record it, so this install's restore still signs the same dtype.
            try await ledger.recordInstalls(accountID: accountID, appleItemIds: grants.map(\.appleItemId),
                                                                               device: clientId, now: now)
        }
        let license = try await issuer.license(for: ask, request: opaque, action: .create, grants: grants)
        return Issued(license: license, unlicensed: body.apps.map(\.appleItemId).filter { refusals[$0] != nil }.uniqued(), refusals: refusals)
    }

    /// The per-app grant: the license of (account, app version, device), issued or — while one is
    /// live — issued again with a new term, unless the account's device limit refuses the device.
    package func grant(appleItemId: UInt64, version: CatalogVersion, account: AccountRecord?, deviceId: String,
               duration: TimeInterval, now: Date) async throws -> LicenseStore.Issue {
        try await store.issue(accountID: account?.id, appleItemId: appleItemId, appleVersionId: version.appleVersionId,
                              deviceId: deviceId, duration: duration,
                              deviceLimit: account.map { settings.deviceLimit(for: $0) } ?? 0, now: now)
    }

    public struct Renewed: Sendable {
        public var license: [UInt8]
        public var ineligible: [UInt64]
    }

    /// A renewal (spec §3.2): unknown licenses, another device's, revoked ones, those of apps no
    /// longer available and of accounts that lost access are ineligible; the rest start a new term.
    public func renew(_ body: LicenseRenewalBody, now: Date = Date()) async throws -> Renewed {
        let opaque = try open(body.renewalRequest, licenseKey: body.licenseKey)
        let ask = try await issuer.read(opaque, action: .renew)
        let records = try await store.licenses(ids: ask.licenseIds)
        let apps = try await catalogIndex.apps(Array(Set(records.values.map(\.appleItemId))))
        var accounts: [UUID: AccountRecord] = [:]
        for accountID in Set(records.values.compactMap(\.accountID)) {
            accounts[accountID] = try await catalog.people.account(id: accountID)
        }
        var eligible: [(record: LicenseRecord, duration: TimeInterval)] = []
        var ineligible: [UInt64] = []
        for licenseId in ask.licenseIds.uniqued() {
            guard let record = records[licenseId], record.deviceId == ask.deviceId, record.revokedAt == nil,
                  let app = apps[record.appleItemId], app.availability == .available else {
                ineligible.append(licenseId)
                continue
            }
            if let accountID = record.accountID {
                guard let account = accounts[accountID], !account.disabled else { ineligible.append(licenseId); continue }
            } else if app.access == .account {
                ineligible.append(licenseId)  // the app now needs an account this license never had
                continue
            }
            // A refund or a lapsed membership ends the app at this renewal, never before the license's end.
            if !app.pricing.isFree, try await payments.verdict(app, account: record.accountID.flatMap { accounts[$0] }) != .open {
                ineligible.append(licenseId)
                continue
            }
            eligible.append((record, duration(for: app)))
        }
        // One update per license duration (public and account apps), whatever the count.
        var grants: [LicenseGrant] = []
        for (term, group) in Dictionary(grouping: eligible, by: \.duration) {
            let renewed = try await store.renew(group.map(\.record.licenseId), duration: term, now: now)
            for (record, _) in group {
                guard let fresh = renewed[record.licenseId], fresh.revokedAt == nil else {
                    ineligible.append(record.licenseId)  // revoked while this request ran
                    continue
                }
                grants.append(LicenseGrant(licenseId: record.licenseId, appleItemId: record.appleItemId, appleVersionId: record.appleVersionId,
                                           assetPublicId: nil, keyBlob: nil, issuedAt: fresh.issuedAt, duration: term))
            }
        }
        grants.sort { a, b in ask.licenseIds.firstIndex(of: a.licenseId)! < ask.licenseIds.firstIndex(of: b.licenseId)! }
        let license = try await issuer.license(for: ask, request: opaque, action: .renew, grants: grants)
        return Renewed(license: license, ineligible: ineligible)
    }
}

extension LicenseService {
    /// Why a license lapsed, for the resolution page (spec §3.3).
    public enum Lapse: Sendable, Equatable {
        case appWithdrawn
        /// Someone who is not signed in as the account the page names: nothing about any account.
        case signInToSee(app: String)
        case renewOnline(app: String)
        case accountDisabled(account: String)
        case revoked(app: String, reason: String?)
        case deviceLimit(app: String, account: String, used: Int, limit: Int)
        case signInToRenew(app: String)
        /// Not bought, or the membership that included it lapsed: pay at `purchaseURL`.
        case paymentRequired(app: String, verdict: PaymentVerdict, detail: String, purchaseURL: String)
    }

    /// Who looks at the resolution page.
    public enum Viewer: Sendable {
        /// Not signed in as the account in question; `namedAccount`: the link names one.
        case stranger(namedAccount: Bool)
        /// A website session of the account the page is about.
        case owner(AccountRecord)
    }

    /// The most likely reason the license of `appleItemId` lapsed. Only the account's own session
    /// learns anything about an account; a database error is thrown, never a verdict.
    public func lapse(appleItemId: UInt64, viewer: Viewer, now: Date = Date()) async throws -> Lapse {
        let app: AppRecord
        do {
            app = try await catalog.appRecord(appleItemId: appleItemId)
        } catch CatalogError.notFound {
            return .appWithdrawn
        }
        guard app.availability == .available else { return .appWithdrawn }
        let account: AccountRecord
        switch viewer {
        case .stranger(let namedAccount):
            return namedAccount || app.access == .account ? .signInToSee(app: app.name) : .renewOnline(app: app.name)
        case .owner(let owner):
            account = owner
        }
        guard !account.disabled else { return .accountDisabled(account: account.email) }
        let accountID = account.id
        let latest = try await store.list(accountID: accountID, appleItemId: appleItemId, limit: 1).first
        if let indexed = try await catalogIndex.apps([appleItemId])[appleItemId], !indexed.pricing.isFree {
            let verdict = try await payments.verdict(indexed, account: account)
            if verdict != .open {
                return .paymentRequired(app: app.name, verdict: verdict, detail: PaymentRule.description(verdict, pricing: indexed.pricing),
                                        purchaseURL: payments.purchaseURL(indexed))
            }
        }
        if let latest, latest.revokedAt != nil { return .revoked(app: app.name, reason: latest.revokedReason) }
        let limit = settings.deviceLimit(for: account)
        let devices = try await store.liveDevices(accountID: accountID, now: now)
        if limit > 0, devices.count >= limit, latest?.isLive(at: now) != true {
            return .deviceLimit(app: app.name, account: account.email, used: devices.count, limit: limit)
        }
        return .signInToRenew(app: app.name)
    }
}

extension SoukConfig.LicensingSettings {
    /// The device limit that applies to `account`: its own, else the server's (0: none).
    public func deviceLimit(for account: AccountRecord) -> Int {
        account.deviceLimit ?? deviceLimit
    }
}

extension SoukRuntime {
    /// The license issuer the settings name.
    public func licenseIssuer() -> any LicenseIssuer {
        if config.licensing.issuer == "sidecar", let url = config.licensing.sidecarURL {
            return SidecarLicenseIssuer(baseURL: url, token: config.licensing.sidecarToken)
        }
        return DevelopmentLicenseIssuer(signingKey: keys.licenseSigningKey, certificateDER: keys.licenseSigningCertificateDER)
    }
}

extension Array where Element: Hashable {
    package func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}
