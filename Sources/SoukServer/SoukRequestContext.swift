import Hummingbird

/// The request context every Souk route runs with.
public struct SoukRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// JSON bodies are small in every Souk API; package uploads go through the CLI, not HTTP.
    public var maxUploadSize: Int { 1 << 20 }
}
