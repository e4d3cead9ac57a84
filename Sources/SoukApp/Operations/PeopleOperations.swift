import Foundation
import SoukCore
import SoukStore

/// What the operator's console and the `souk` commands do to a person: grant and revoke promotional
/// entitlements, disable and enable, sign out everywhere, make a password reset link, set a role,
/// reset two-factor sign-in. Each operation takes the `SoukActor` doing it, asks `AccountScope`
/// first, and writes its own audit entry, so the console and the commands record the same entry
/// for the same action.
package struct PeopleOperations: Sendable {
    package let database: SoukDatabase
    /// The purchase store that tells this process's entitlement index what each write changed.
    package let purchases: PurchaseStore
    package let commerceCatalogs: CommerceCatalogCache
    package let tokens: TokenStore
    /// Where the two-factor secrets' sealing key lives.
    package let keysDir: String
    package let now: @Sendable () -> Date

    package init(database: SoukDatabase, purchases: PurchaseStore, commerceCatalogs: CommerceCatalogCache, tokens: TokenStore,
                 keysDir: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.purchases = purchases
        self.commerceCatalogs = commerceCatalogs
        self.tokens = tokens
        self.keysDir = keysDir
        self.now = now
    }

    package init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date = Date.init) {
        self.init(database: runtime.database, purchases: runtime.purchases, commerceCatalogs: runtime.commerceCatalogs,
                  tokens: runtime.tokens, keysDir: runtime.config.keysDir, now: now)
    }

    package var audit: AuditLog { AuditLog(database: database, now: now) }
    package var scope: AccountScope { AccountScope(audit: audit) }
    package var people: PeopleDirectory { PeopleDirectory(database: database) }
    package var grants: EntitlementGrantStore { EntitlementGrantStore(purchases: purchases) }
    var sessions: WebSessionStore { WebSessionStore(database: database, now: now) }

    /// Ends every device token and browser session of the account at once.
    func signOutEverywhere(_ account: UUID) async throws {
        try await tokens.revokeAll(accountID: account)
        try await sessions.deleteAll(accountID: account)
    }
}
