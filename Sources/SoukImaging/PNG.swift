import Foundation

/// A decoded image: 8-bit RGBA pixels, row by row, not premultiplied.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes: red, green, blue, alpha.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4, "RGBA pixels must match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8, UInt8)) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = fill.0; pixels[index + 1] = fill.1; pixels[index + 2] = fill.2; pixels[index + 3] = fill.3
        }
        self.init(width: width, height: height, pixels: pixels)
    }
}

/// The subset of PNG (RFC 2083, W3C PNG 2nd edition) Souk reads and writes for app media: 8-bit
/// greyscale, grey+alpha, RGB, RGBA and palette images (with `tRNS`), not interlaced. Everything
/// is checked before it is trusted — chunk CRCs, the zlib header and Adler-32, and the size: at
/// most `maxDimension` pixels a side and `maxFileBytes` a file, and the inflated image data is
/// bounded by what width × height needs, so a small "zip bomb" cannot grow in memory.
public enum PNG {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    public static let maxDimension = 4096
    public static let maxFileBytes = 8 << 20

    /// Whether `data` starts like a PNG file.
    public static func hasSignature(_ data: Data) -> Bool {
        data.count >= 8 && Array(data.prefix(8)) == signature
    }
}

/// Why a PNG was refused, said for the person who supplied it.
public enum PNGError: Error, Equatable, CustomStringConvertible {
    case notPNG
    case tooLarge(String)
    case unsupported(String)
    case corrupt(String)

    public var description: String {
        switch self {
        case .notPNG: "not a PNG file"
        case .tooLarge(let what): "too large: \(what)"
        case .unsupported(let what): "unsupported PNG: \(what)"
        case .corrupt(let what): "damaged PNG: \(what)"
        }
    }
}
