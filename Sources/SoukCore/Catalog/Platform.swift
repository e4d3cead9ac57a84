/// A device platform as MarketplaceKit names it.
///
/// Manifests write platforms in lower case (`ios`); devices send `iOS`, `iPadOS` or `ios`.
/// The raw value is always the lower-case manifest form.
public struct Platform: Sendable, Hashable, Codable, CustomStringConvertible, RawRepresentable {
    public let rawValue: String

    /// Normalises any spelling to lower case; rejects empty or non-alphanumeric names.
    public init?(rawValue: String) {
        let lowered = rawValue.lowercased()
        guard !lowered.isEmpty, lowered.utf8.count <= 32,
              lowered.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }) else {
            return nil
        }
        self.rawValue = lowered
    }

    public static let iOS = Platform(rawValue: "ios")!
    public static let iPadOS = Platform(rawValue: "ipados")!

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let platform = Platform(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid platform \(text)"))
        }
        self = platform
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
