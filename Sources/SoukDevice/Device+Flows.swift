import Foundation
import SoukCore

extension Device {
    /// One group of installed apps: same website domain and account (iOS groups requests so).
    struct Group {
        var domain: String
        var account: String?
        var apps: [DeviceState.InstalledApp]
        /// Where the group's packages are (and so its configuration file and OAuth metadata).
        var origin: String
    }

    /// The installed apps by domain and account; a package URL the state holds that is not one
    /// (a hand-edited state) is an `invalidAlternativeDistributionPackageURL`.
    func groups() throws -> [Group] {
        try Dictionary(grouping: state.installs) { DeviceState.key(domain: $0.domain, account: $0.account) }
            .values.compactMap { apps -> Group? in
                guard let first = apps.first else { return nil }
                return Group(domain: first.domain, account: first.account, apps: apps, origin: try PackageLocation(first.packageURL).origin)
            }
            .sorted { $0.domain + ($0.account ?? "") < $1.domain + ($1.account ?? "") }
    }

    /// The body of `restore` and `updates` (spec §6) as iOS sends it: ids as strings.
    static func appsBody(_ apps: [(appleItemId: UInt64, appleVersionId: UInt64)], platform: String, osVersion: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("apps")
        writer.beginArray()
        for app in apps {
            writer.beginObject()
            writer.field("appleItemId", String(app.appleItemId))
            writer.field("appleVersionId", String(app.appleVersionId))
            writer.endObject()
        }
        writer.endArray()
        writer.field("platform", platform)
        writer.field("osVersion", osVersion)
        writer.endObject()
        return writer.bytes
    }

    func appsBody(_ apps: [DeviceState.InstalledApp]) -> [UInt8] {
        Self.appsBody(apps.map { ($0.appleItemId, $0.appleVersionId) }, platform: state.platform, osVersion: state.osVersion)
    }

    func post(_ url: String, _ body: [UInt8], bearer: String?) async throws -> DeviceHTTP.Answer {
        var headers = [("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return try await http.send(.POST, url, headers: headers, body: body)
    }

    /// What a failure entry means on the Home Screen.
    func reportFailures(_ object: [String: Any]) -> [String] {
        ((object["failures"] as? [[String: Any]]) ?? []).map { failure in
            let id = failure["appleItemId"].map { "\($0)" } ?? "?"
            let detail = (failure["failure"] as? [String: Any])?["description"] as? String ?? ""
            let line = "App Not Available: \(id)\(detail.isEmpty ? "" : " (\(detail))")"
            output.say(line)
            return line
        }
    }

    /// Items of a `restores`/`updates` answer: installs each one (download, license, token check).
    func installItems(_ items: [[String: Any]], group: Group, bearer: String?) async throws -> [DeviceState.InstalledApp] {
        var installed: [DeviceState.InstalledApp] = []
        for item in items {
            guard let package = item["alternativeDistributionPackage"] as? String else {
                throw DeviceError(.invalidAlternativeDistributionPackageURL, "an item has no alternativeDistributionPackage")
            }
            guard let token = item["installVerificationToken"] as? String, !token.isEmpty else {
                throw DeviceError(.missingInstallVerificationToken, "an item for \(item["appleItemId"] ?? "?") has no installVerificationToken")
            }
            installed.append(try await installPackage(package, token: token, account: group.account, bearer: bearer))
        }
        return installed
    }

    public struct Outcome: Sendable {
        public var installed: [DeviceState.InstalledApp] = []
        public var failures: [String] = []
        public var skipped: String?
    }

    // MARK: Restore (docs/marketplacekit.md, "restore and updates")

    /// A device restored from a backup: `restore` for the installed apps, grouped by account; on
    /// 401 or 403, the reauthentication of MarketplaceKit's “Reauthenticating a person”, then a retry.
    public func restore(forgetTokens: Bool) async throws -> Outcome {
        if forgetTokens {
            state.tokens = [:]
            try save()
        }
        var outcome = Outcome()
        for group in try groups() {
            let endpoints = try await MarketplaceClient.configuration(http, origin: group.origin, appleItemId: group.apps[0].appleItemId)
            let key = DeviceState.key(domain: group.domain, account: group.account)
            var bearer = state.tokens[key]?.accessToken
            var answer = try await post(endpoints.restore, appsBody(group.apps), bearer: bearer)
            if answer.status == 401 || answer.status == 403 {
                output.say("\(group.domain) answered \(answer.status): Verification Required — signing in again.")
                bearer = try await reauthenticate(group: group)
                answer = try await post(endpoints.restore, appsBody(group.apps), bearer: bearer)
            }
            guard answer.status == 200 else { throw DeviceError(.protocolViolation, "restore answered \(answer.status)") }
            let object = try http.json(answer, "restore")
            outcome.failures += reportFailures(object)
            outcome.installed += try await installItems((object["restores"] as? [[String: Any]]) ?? [], group: group, bearer: bearer)
        }
        return outcome
    }

    /// Signs in again with `login_hint` = the group's account (credentials from `credentials`).
    func reauthenticate(group: Group) async throws -> String {
        let metadata = try await MarketplaceClient.oauthMetadata(http, origin: group.origin)
        let clientId = state.clientId(domain: group.domain, account: group.account)
        guard let credentials else {
            throw DeviceError(.oauthTokenError, "Verification Required: sign in at \(metadata.authorizationEndpoint) (give --email and --password to do it here)")
        }
        let tokens = try await MarketplaceClient.signIn(http, metadata: metadata, clientId: clientId,
                                                        email: group.account ?? credentials.email, password: credentials.password)
        state.tokens[DeviceState.key(domain: group.domain, account: group.account)] = tokens
        try save()
        output.say("Signed in to \(group.domain) again.")
        return tokens.accessToken
    }

    // MARK: Updates (spec §6)

    /// The automatic update check: honours `pollingInterval` unless forced, installs what comes
    /// back, reports failures ("App Not Available") and 401/403 ("Verification Required").
    public func updates(force: Bool, now: Date = Date()) async throws -> Outcome {
        var outcome = Outcome()
        for group in try groups() {
            let endpoints = try await MarketplaceClient.configuration(http, origin: group.origin, appleItemId: group.apps[0].appleItemId)
            if !force, let last = state.lastUpdateCheck[group.domain], now.timeIntervalSince(last) < TimeInterval(endpoints.pollingInterval * 3600) {
                let next = last.addingTimeInterval(TimeInterval(endpoints.pollingInterval * 3600))
                let message = "Skipped \(group.domain): checked \(Int(now.timeIntervalSince(last) / 60)) min ago; the marketplace asks for every \(endpoints.pollingInterval) h (next after \(ISO8601DateFormatter().string(from: next)); --force to check now)."
                output.say(message)
                outcome.skipped = message
                continue
            }
            let bearer = state.tokens[DeviceState.key(domain: group.domain, account: group.account)]?.accessToken
            let answer = try await post(endpoints.updatesURL, appsBody(group.apps), bearer: bearer)
            state.lastUpdateCheck[group.domain] = now
            try save()
            if answer.status == 401 || answer.status == 403 {
                let line = "Verification Required: \(group.domain) (\(answer.status)); open the marketplace app to sign in"
                output.say(line)
                outcome.failures.append(line)
                continue
            }
            guard answer.status == 200 else { throw DeviceError(.protocolViolation, "updates answered \(answer.status)") }
            let object = try http.json(answer, "updates")
            outcome.failures += reportFailures(object)
            let items = (object["updates"] as? [[String: Any]]) ?? []
            if items.isEmpty, outcome.failures.isEmpty { output.say("\(group.domain): everything is up to date.") }
            outcome.installed += try await installItems(items, group: group, bearer: bearer)
        }
        return outcome
    }

    // MARK: License renewal (spec §3.2)

    /// The daily renewal of licenses expiring within 24 hours (all with `all`); ineligible ones
    /// are reported as iOS would: the app stops launching when its license ends.
    public func renewLicenses(all: Bool, now: Date = Date()) async throws -> (renewed: [UInt64], ineligible: [UInt64]) {
        var renewed: [UInt64] = []
        var ineligible: [UInt64] = []
        for (domain, licenses) in Dictionary(grouping: state.licenses, by: \.domain) {
            let due = licenses.filter { all || ($0.expiresAt ?? .distantPast) < now.addingTimeInterval(86_400) }
            guard !due.isEmpty, let app = state.installs.first(where: { $0.domain == domain }) else { continue }
            let endpoints = try await MarketplaceClient.configuration(http, origin: try PackageLocation(app.packageURL).origin, appleItemId: app.appleItemId)
            let key = try await encryptionKey(endpoints)
            let request = DevelopmentLicenseRequest(requestId: UInt64.random(in: 1...UInt64(Int64.max)), deviceId: state.deviceId,
                                                    action: .renew, licenseIds: due.map(\.licenseId))
            let sealed = try LicenseCrypto.seal(request: request.json, for: key)
            let body = #"{"renewalRequest": "\#(Data(sealed.request).base64EncodedString())", "licenseKey": "\#(Data(sealed.licenseKey).base64EncodedString())"}"#
            let answer = try await post(endpoints.licenseRenewalURL, Array(body.utf8), bearer: nil)
            guard answer.status == 200 else { throw DeviceError(.invalidLicense, "the renewal endpoint answered \(answer.status)") }
            let object = try http.json(answer, "license renewal")
            let refused = Set(((object["ineligibleLicenses"] as? [Any]) ?? []).compactMap { UInt64("\($0)") })
            let fresh = (object["license"] as? String).flatMap { Data(base64Encoded: $0) }.map(Self.developmentLicenses) ?? []
            for license in due {
                if refused.contains(license.licenseId) {
                    ineligible.append(license.licenseId)
                    let name = state.installs.first { $0.appleItemId == license.appleItemId }?.bundleId ?? String(license.appleItemId)
                    output.say("\(name) will stop launching: its license was not renewed (ineligible)\(endpoints.licenseResolutionURL.map { "; Resolve: \($0)?appleItemID=\(license.appleItemId)" } ?? "").")
                } else {
                    renewed.append(license.licenseId)
                    if let update = fresh.first(where: { $0.licenseId == license.licenseId }),
                       let index = state.licenses.firstIndex(where: { $0.licenseId == license.licenseId }) {
                        state.licenses[index].expiresAt = update.expiresAt
                    }
                }
            }
        }
        try save()
        output.say("Licenses renewed: \(renewed.count), ineligible: \(ineligible.count).")
        return (renewed, ineligible)
    }
}
