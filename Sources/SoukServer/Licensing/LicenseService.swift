import Foundation
import SoukCore
import SoukStore
import _CryptoExtras

/// Souk's licensing policy (spec §3): who gets a license for which app, for how long, on how many
/// devices, and which renewals are refused. The issuer only reads requests and builds blobs.
public struct LicenseService: Sendable {
    let runtime: SoukRuntime
    let issuer: any LicenseIssuer
    let store: LicenseStore

    public init(runtime: SoukRuntime, issuer: any LicenseIssuer) {
        self.runtime = runtime
        self.issuer = issuer
        self.store = LicenseStore(database: runtime.database)
    }

    /// Why an app got no license (recorded in logs; the device only sees `unlicensedApps`).
    public enum Refusal: String, Sendable {
        case unknownApp = "unknown app"
        case unavailable = "app taken down or removed"
        case versionUnavailable = "version not offered"
        case accountRequired = "account required"
        case accountDisabled = "account disabled"
        case deviceLimit = "device limit reached"
    }

    public struct Issued: Sendable {
        public var license: [UInt8]
        public var unlicensed: [UInt64]
        public var refusals: [UInt64: Refusal]
    }

    func duration(for app: CatalogApp) -> TimeInterval {
        TimeInterval((app.access == .account ? runtime.config.licensing.accountHours : runtime.config.licensing.publicHours) * 3600)
    }


    /// Opens the envelope with the encryption key; a 400 for anything that does not decrypt.
    func open(_ request: [UInt8], licenseKey: [UInt8]) throws -> [UInt8] {
        try LicenseCrypto.open(request: request, licenseKey: licenseKey, with: runtime.keys.licenseEncryptionKey)
    }

    /// A dynamic license request (spec §3.1). The caller has applied the bearer rules.
    public func create(_ body: LicenseRequestBody, accountID: UUID?, now: Date = Date()) async throws -> Issued {
        let opaque = try open(body.licenseRequest, licenseKey: body.licenseKey)
        let ask = try await issuer.read(opaque, action: .create)
        let apps = try await runtime.catalogIndex.apps(body.apps.map(\.appleItemId))
        var account: AccountModel?
        var liveDevices: Set<String> = []
        if let accountID {
            account = try await runtime.catalog.account(id: accountID)
            liveDevices = try await store.liveDevices(accountID: accountID, now: now)
        }
        var grants: [LicenseGrant] = []
        var refusals: [UInt64: Refusal] = [:]
        for (appleItemId, wanted) in body.apps where refusals[appleItemId] == nil && !grants.contains(where: { $0.appleItemId == appleItemId }) {
            let refuse = { (reason: Refusal) in refusals[appleItemId] = reason }
            guard let app = apps[appleItemId] else { refuse(.unknownApp); continue }
            guard app.availability == .available else { refuse(.unavailable); continue }
            let version: CatalogVersion
            if let requested = wanted.appleVersionId {
                guard let match = app.versions.first(where: { $0.appleVersionId == requested }) else { refuse(.versionUnavailable); continue }
                version = match
            } else {
                guard let newest = app.versions.first else { refuse(.versionUnavailable); continue }
                version = newest
            }
            if app.access == .account, account == nil { refuse(.accountRequired); continue }
            if let account {
                guard !account.disabled else { refuse(.accountDisabled); continue }
                let limit = runtime.config.licensing.deviceLimit(for: account)
                if limit > 0, !liveDevices.contains(ask.deviceId), liveDevices.count >= limit { refuse(.deviceLimit); continue }
            }
            let record = try await store.create(accountID: accountID, appleItemId: appleItemId, appleVersionId: version.appleVersionId,
                                                deviceId: ask.deviceId, duration: duration(for: app), now: now)
            liveDevices.insert(ask.deviceId)
            grants.append(LicenseGrant(licenseId: record.licenseId, appleItemId: appleItemId, appleVersionId: version.appleVersionId,
                                       assetPublicId: wanted.assetPublicId,
                                       keyBlob: try await wanted.assetPublicId.asyncMap { try await store.keyBlob(assetPublicId: $0) } ?? nil,
                                       issuedAt: record.issuedAt, duration: duration(for: app)))
        }
        let license = try await issuer.license(for: ask, request: opaque, action: .create, grants: grants)
        return Issued(license: license, unlicensed: body.apps.map(\.appleItemId).filter { refusals[$0] != nil }.uniqued(), refusals: refusals)
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
        let apps = try await runtime.catalogIndex.apps(Array(Set(records.values.map(\.appleItemId))))
        var accounts: [UUID: AccountModel] = [:]
        for accountID in Set(records.values.compactMap(\.accountID)) {
            accounts[accountID] = try await runtime.catalog.account(id: accountID)
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
    /// Why a license lapsed, for the resolution page (spec §3.3). Names are the app's and account's.
    public enum Lapse: Sendable, Equatable {
        case appWithdrawn
        case accountNeeded(app: String)
        case renewOnline(app: String)
        case unknownAccount(app: String)
        case accountDisabled(account: String)
        case revoked(app: String, reason: String?)
        case deviceLimit(app: String, account: String, used: Int, limit: Int)
        case signInToRenew(app: String)
    }

    /// The most likely reason the license of `appleItemId` lapsed for `email` (or an unnamed person).
    public func lapse(appleItemId: UInt64, email: String?, now: Date = Date()) async throws -> Lapse {
        guard let app = try? await runtime.catalog.app(appleItemId: appleItemId), app.availability == .available else { return .appWithdrawn }
        guard let email else { return app.access == .account ? .accountNeeded(app: app.name) : .renewOnline(app: app.name) }
        guard let account = try await runtime.catalog.account(email: email) else { return .unknownAccount(app: app.name) }
        guard !account.disabled else { return .accountDisabled(account: account.email) }
        let accountID = try account.requireID()
        let latest = try await store.list(accountID: accountID, appleItemId: appleItemId, limit: 1).first
        if let latest, latest.revokedAt != nil { return .revoked(app: app.name, reason: latest.revokedReason) }
        let limit = runtime.config.licensing.deviceLimit(for: account)
        let devices = try await store.liveDevices(accountID: accountID, now: now)
        if limit > 0, devices.count >= limit, latest?.isLive(at: now) != true {
            return .deviceLimit(app: app.name, account: account.email, used: devices.count, limit: limit)
        }
        return .signInToRenew(app: app.name)
    }
}

extension SoukConfig.LicensingSettings {
    /// The device limit that applies to `account`: its own, else the server's (0: none).
    public func deviceLimit(for account: AccountModel) -> Int {
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
    func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
