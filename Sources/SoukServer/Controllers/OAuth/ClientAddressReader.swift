import HTTPTypes
import Hummingbird
import SoukCore

/// Reads a request's client address for throttling: the socket's peer, or behind the reverse
/// proxies named by `trustedProxies` the client they report in `X-Forwarded-For` (SoukCore's
/// `ClientAddress`). The answer is a throttling key: an IPv4 address or an IPv6 /64.
struct ClientAddressReader: Sendable {
    let trustedProxies: [IPNetwork]

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func key(for request: Request, context: some RequestContext) -> String {
        let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        let forwarded = trustedProxies.isEmpty ? [] : request.headers[values: Self.forwardedFor]
        return ClientAddress.throttleKey(ClientAddress.resolve(peer: peer, forwardedFor: forwarded, trustedProxies: trustedProxies))
    }
}
