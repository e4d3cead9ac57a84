import Foundation

/// Which of the two app-data endpoints (spec §6) is answering.
public enum AppDataKind: String, Sendable {
    case restore = "restores"
    case updates = "updates"
}

/// What `restore` or `updates` answers for one requested app.
public enum AppDataOutcome: Sendable, Equatable {
    /// Offer this version: an item in `restores` / `updates`.
    case offer(CatalogVersion)
    /// A `failures` entry with code 404 and this description, keeping the requested version id.
    case fail(String)
    /// Leave the app out (an update check for an app that is current).
    case skip
}

/// The restore/updates decision for one request, made once from what the controller gathered
/// (the catalog apps the request names), so the handler only gathers and writes (spec §6, §8).
public enum AppDataDecision {
    /// The request must carry a bearer token: it names an app only a signed-in person may install
    /// (answered 401 with `WWW-Authenticate` when no token came).
    public static func needsSignIn(_ requested: [AppsRequest.App], apps: [UInt64: CatalogApp]) -> Bool {
        requested.contains { apps[$0.appleItemId]?.requiresAccount ?? false }
    }

    /// The outcome for one app; `app` is nil when the catalog does not know it.
    public static func decide(_ kind: AppDataKind, _ requested: AppsRequest.App, app: CatalogApp?,
                              platform: Platform, osVersion: OSVersion) -> AppDataOutcome {
        guard let app else { return .fail("App unavailable.") }
        switch app.availability {
        case .available: break
        case .removedByDeveloper: return .fail("The developer removed this app.")
        case .takenDown: return .fail("This app is no longer available.")
        }
        let incompatible = AppDataOutcome.fail("No version of this app runs on \(platform) \(osVersion).")
        let withdrawn = AppDataOutcome.fail("This version of the app was withdrawn.")
        switch kind {
        case .restore:
            switch VersionChoice.restore(app.versions, withdrawn: app.withdrawnVersions, requested: requested.appleVersionId,
                                         platform: platform, osVersion: osVersion) {
            case .restore(let version): return .offer(version)
            case .withdrawn: return withdrawn
            case .noCompatibleVersion: return incompatible
            }
        case .updates:
            switch VersionChoice.update(app.versions, withdrawn: app.withdrawnVersions, installed: requested.appleVersionId,
                                        platform: platform, osVersion: osVersion) {
            case .newer(let version): return .offer(version)
            case .current: return .skip
            case .withdrawn: return withdrawn
            case .noCompatibleVersion: return incompatible
            }
        }
    }
}
