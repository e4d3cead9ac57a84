import Logging
import ServiceLifecycle

/// A background service that, every `interval` until graceful shutdown, does what is due now
/// (`processDue`): the pending-purchase, webhook-delivery and store-notification workers. Each
/// keeps its state in the database, claimed with leases, so any number of processes may run it.
public protocol PollingWorker: Service {
    var interval: Duration { get }
    @discardableResult func processDue() async -> Int
}

extension PollingWorker {
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await processDue()
                try? await Task.sleep(for: interval)
            }
        }
    }
}

extension PollingWorker {
    /// Claims due work `claim` by `claim` until none is left (or the task is cancelled), hands each
    /// claimed item to `handle`, and answers how many it settled. A database that cannot answer ends
    /// the round with `failure` logged: the claims' leases run out and the items are taken again.
    package func drain<Item>(logger: Logger, failure: Logger.Message, claim: () async throws -> [Item],
                     handle: (Item) async -> Bool) async -> Int {
        var settled = 0
        do {
            while !Task.isCancelled {
                let due = try await claim()
                if due.isEmpty { break }
                for item in due where await handle(item) { settled += 1 }
            }
        } catch {
            logger.error(failure, metadata: ["error": "\(String(reflecting: error))"])
        }
        return settled
    }
}
