import Foundation
import SoukCore
import SoukStore

extension DeveloperOwnership {
    /// What of an app's sales `actor` reaches, by the app's bundle id: the in-app catalog with that
    /// id (a developer actor: when its organisation owns it), and the marketplace's sales of the
    /// marketplace apps with that bundle id (a developer actor: those its organisation owns). The
    /// scope is checked first; an id the actor reaches nothing of is `notFound`, as an unknown one.
    package func sales(of app: String, for actor: SoukActor, scope: DeveloperScope = .purchasesRead) async throws
        -> (catalog: Bool, marketplace: MarketplaceSalesScope) {
        try Self.authorize(actor, scope)
        if let developer = actor.developerID { return try await sales(of: app, organisation: developer) }
        let catalog = try await catalogs.state(app: app) != nil
        let apps = try await directory.appExists(bundleId: app)
        guard catalog || apps else { throw Self.noSales }
        return (catalog, apps ? .every : .none)
    }

    /// What of `app`'s sales the organisation `developer` owns (the scheduled exports, which the
    /// system makes for each organisation); `notFound` when nothing.
    package func sales(of app: String, organisation developer: String) async throws -> (catalog: Bool, marketplace: MarketplaceSalesScope) {
        let catalog = try await directory.owner(catalog: app) == developer
        let apps = try await directory.bundleIds(of: developer).contains(app)
        guard catalog || apps else { throw Self.noSales }
        return (catalog, apps ? .developer(developer) : .none)
    }

    package static let noSales = DeveloperOperationError.notFound("No app or in-app catalog of yours has this bundle id.")
}
