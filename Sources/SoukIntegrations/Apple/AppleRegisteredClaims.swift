import Foundation

/// JWT registered claims in App Store signed data. Apple never sets them, but Apple's Python
/// library decodes with PyJWT, which refuses a token whose `exp` has passed, whose `nbf` or `iat`
/// lies in the future or is not a number, that names an audience (`aud`) nobody asked for, or whose
/// `sub` / `jti` is not a string. Souk refuses the same tokens, so the two agree verdict for verdict
/// (Apple's Swift library does not look at these claims).
enum AppleRegisteredClaims {
    static func check(_ payloadJSON: Data, now: Date) -> AppleVerificationFailure? {
        guard let claims = (try? JSONSerialization.jsonObject(with: payloadJSON)) as? [String: Any] else { return nil }
        let seconds = now.timeIntervalSince1970
        if let iat = claims["iat"] {
            guard let value = integer(iat) else { return refuse("iat is not an integer") }
            if Double(value) > seconds { return refuse("iat is in the future") }
        }
        if let nbf = claims["nbf"] {
            guard let value = integer(nbf) else { return refuse("nbf is not an integer") }
            if Double(value) > seconds { return refuse("nbf is in the future") }
        }
        if let exp = claims["exp"] {
            guard let value = integer(exp) else { return refuse("exp is not an integer") }
            if Double(value) <= seconds { return refuse("exp has passed") }
        }
        if let aud = claims["aud"], isTruthy(aud) { return refuse("an audience (aud) is named") }
        if let sub = claims["sub"], !(sub is String) { return refuse("sub is not a string") }
        if let jti = claims["jti"], !(jti is String) { return refuse("jti is not a string") }
        return nil
    }

    private static func refuse(_ detail: String) -> AppleVerificationFailure {
        .init(.invalidRegisteredClaim, detail)
    }

    /// Python's `int(value)`: numbers truncate toward zero, strings must spell an integer.
    private static func integer(_ value: Any) -> Int64? {
        if let number = value as? NSNumber {
            let double = number.doubleValue
            guard double.isFinite, abs(double) < 9.2e18 else { return nil }
            return Int64(double.rounded(.towardZero))
        }
        if let text = value as? String {
            return Int64(text.trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// Python truthiness of a JSON value.
    private static func isTruthy(_ value: Any) -> Bool {
        switch value {
        case is NSNull: false
        case let text as String: !text.isEmpty
        case let array as [Any]: !array.isEmpty
        case let object as [String: Any]: !object.isEmpty
        case let number as NSNumber: number.doubleValue != 0
        default: true
        }
    }
}
