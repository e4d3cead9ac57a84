import Foundation

/// Who a request comes from, for throttling: the socket's peer, or behind trusted reverse proxies
/// the address they report in `X-Forwarded-For`.
public enum ClientAddress {
    /// The client of a request that reached Souk from `peer` carrying `forwardedFor` (every
    /// `X-Forwarded-For` field value, in order).
    ///
    /// Without trusted proxies, or when the peer is not one of them, the header is ignored: anyone
    /// can write it. Otherwise the list is read from the right, skipping trusted proxies; the first
    /// address that is not one is the client, because a trusted proxy wrote it. An entry that is not
    /// an address ends the walk at the last hop that could be trusted. nil when the peer is unknown.
    public static func resolve(peer: IPAddress?, forwardedFor: [String], trustedProxies: [IPNetwork]) -> IPAddress? {
        guard var current = peer, isTrusted(current, trustedProxies) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard let address = parseHop(hop) else { return current }
            current = address
            if !isTrusted(address, trustedProxies) { return address }
        }
        return current
    }

    /// The throttling key for an address: an IPv4 address itself, an IPv6 address's /64 (one
    /// subscriber's network: its host part is the client's to choose).
    public static func throttleKey(_ address: IPAddress?) -> String {
        guard let address else { return "unknown" }
        if address.isIPv4 { return address.description }
        return IPNetwork(address: address, prefixLength: 64).description
    }

    private static func isTrusted(_ address: IPAddress, _ networks: [IPNetwork]) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`, with spaces around.
    private static func parseHop(_ text: Substring) -> IPAddress? {
        let hop = text.trimmingCharacters(in: .whitespaces)
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
            return IPAddress(hop[hop.index(after: hop.startIndex)..<close])
        }
        if let address = IPAddress(hop) { return address }
        let parts = hop.split(separator: ":")
        if parts.count == 2, parts[1].allSatisfy(\.isNumber) { return IPAddress(parts[0]) }
        return nil
    }
}
