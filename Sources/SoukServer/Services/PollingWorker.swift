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
