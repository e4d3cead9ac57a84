import Hummingbird
import SoukApp
import SoukCore

/// The context of the developer API's routes: the parent's, plus the actor the route group's
/// `DeveloperKeyMiddleware` found behind the request's API key.
struct DeveloperRequestContext: ChildRequestContext {
    typealias ParentContext = SoukRequestContext
    var coreContext: CoreRequestContextStorage
    /// Set by `DeveloperKeyMiddleware` before any handler runs.
    var actor: SoukActor?

    init(context: SoukRequestContext) throws {
        self.coreContext = context.coreContext
    }

    /// JSON bodies (a catalog file, a grant, a webhook) stay small; packages are streamed to disk.
    var maxUploadSize: Int { 4 << 20 }

    /// The actor of the request; a route outside the middleware's group would have none.
    func requireActor() throws -> SoukActor {
        guard let actor else { throw Problem(.unauthorized, "This request needs a developer API key (Authorization: Bearer sk_…).") }
        return actor
    }
}
