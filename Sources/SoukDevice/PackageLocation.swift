import Foundation

/// An alternative distribution package's URL as the device accepts it (spec §5, §7): absolute,
/// `https` (plain `http` only on a loopback host, for local testing), with a host. Every package URL
/// a server supplies — in a link, a `restores` or `updates` item — passes through here, so a
/// malformed one is an `invalidAlternativeDistributionPackageURL`, never a crash.
public struct PackageLocation: Sendable, Equatable {
    /// The package folder, ending in `/`; `manifest.json` and the assets are relative to it.
    public var base: String
    /// `scheme://host[:port]`, where the configuration file and OAuth metadata are.
    public var origin: String
    /// The host: the website domain tokens and restores are grouped by.
    public var domain: String

    public init(_ text: String) throws(DeviceError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "the package URL is not an absolute URL (\(text))")
        }
        guard scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host)) else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "the package URL must be https (\(text))")
        }
        base = text.hasSuffix("/") ? text : text + "/"
        origin = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)" + (components.port.map { ":\($0)" } ?? "")
        domain = host
    }
}
