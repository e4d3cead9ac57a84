import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk stores reconcile [--app APP] [--account EMAIL]`: asks the stores now about every live
/// subscription (of the app, of the account, or all; not only those due), applies what they say (source
/// `reconciliation`) and prints what changed. Apple is asked through the App Store Server API
/// (the app's In-App Purchase key): the latest transaction of each subscription, with its
/// renewal state; with `--account`, also the customer's whole transaction history (paged by
/// `revision`) and refund history. Without `--account`, Google Play's voided purchases of the app (or
/// of every app) are read too, from where the server's last listing stopped.
struct StoresReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Re-check subscriptions at their stores now and record what changed.")
    @OptionGroup var settings: SettingsOptions
    @Option(help: "Only this app.") var app: String?
    @Option(help: "Only this account (email).") var account: String?

    func run() async throws {
        try await withRuntime(settings) { runtime in
            let accountId = try await account.asyncMap { try await runtime.catalog.people.requireAccount(email: $0).id }
            let reconciler = Reconciler(purchases: runtime.purchases, verifiers: try runtime.storeVerifiers(), catalogs: runtime.commerceCatalogs,
                                        storeStatus: StoreStatusStore(database: runtime.database),
                                        retryBase: runtime.config.commerce.stores.retry.base.timeInterval, logger: runtime.logger)
            let verifiers = try runtime.storeVerifiers()
            let summary = try await reconciler.run(app: app, account: accountId, force: true)
            print("Reconciled: \(summary)")
            if accountId == nil, let voided = runtime.googleVoidedPoller(verifiers: verifiers, holder: "cli-\(ProcessInfo.processInfo.processIdentifier)") {
                let read = await voided.run(app: app)
                if read.apps > 0 { print("Google Play voided purchases: \(read)") }
            }
            if let accountId {
                let history = try await reconciler.reconcileAppleHistory(account: accountId, app: app)
                print("App Store history: \(history.summary)")
                for skipped in history.skipped {
                    print("  \(skipped): no In-App Purchase key, so its App Store history was not read (souk stores set --store apple_store).")
                }
            }
            if summary.failed > 0 {
                print("Some stores gave no answer; they are asked again later (souk stores status shows why).")
            }
        }
    }
}
