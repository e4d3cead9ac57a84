import Hummingbird
import NIOCore
import SoukStore

/// The request context every Souk route runs with.
public struct SoukRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address (the proxy's, behind a reverse proxy).
    public let remoteAddress: SocketAddress?
    /// The bearer of a route group that `BearerMiddleware` authenticated (nil elsewhere).
    public var bearer: TokenStore.Bearer? = nil
    /// The operator console's session, set by `ConsoleMiddleware` on `/admin…` routes (nil elsewhere).
    var consoleSession: ConsoleSession? = nil
    /// The developer console's session, set by `DeveloperConsoleMiddleware` on `/developer…` routes (nil elsewhere).
    var developerSession: DeveloperSession? = nil
    /// The website's signed-in session, set by `WebSessionMiddleware` on the routes that need one (nil elsewhere).
    var webSession: WebSessionStore.Session? = nil

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// JSON bodies are small in every Souk API; package uploads go through the CLI, not HTTP.
    public var maxUploadSize: Int { 1 << 20 }
}
