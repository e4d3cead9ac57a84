import Foundation
import Logging
import ServiceLifecycle
import SoukStore

/// Follows the mass renewal-date extensions operators asked Apple for (docs/stores.md): each
/// pending one is claimed by one process, Apple's status is read, and once Apple completes it the
/// entitlements of the affected purchases move (`AppleOperations.followMassExtension`). The
/// request is in the database, so a restart only delays it.
public struct AppleExtensionWorker: PollingWorker {
    package let operations: AppleOperations
    public let interval: Duration
    package let logger: Logger

    public init(operations: AppleOperations, interval: Duration = .seconds(5), logger: Logger) {
        self.operations = operations
        self.interval = interval
        self.logger = logger
    }

    @discardableResult
    public func processDue() async -> Int {
        var done = 0
        do {
            for row in try await operations.extensions.claimDue(limit: 10) {
                do {
                    if try await operations.followMassExtension(row) == .complete { done += 1 }
                } catch {
                    // A missing key or the database: the claim's lease runs out and it is looked at again.
                    logger.error("mass extension cannot be followed now",
                                 metadata: ["app": "\(row.app)", "request": "\(row.requestIdentifier)", "error": "\(error)"])
                }
            }
        } catch {
            logger.error("mass extensions cannot be read now", metadata: ["error": "\(String(reflecting: error))"])
        }
        return done
    }
}
