import Foundation
@testable import SoukImaging
@testable import SoukStore
import Testing

/// The PNG decoder, encoder and downscaler behind app media: every accepted colour type, the
/// checks that refuse damaged, oversized and unsupported files, and area-averaged resizing.
@Suite struct PNGTests {
    /// 2×2 greyscale (0, 255 / 128, 64), made by Python's zlib, not by Souk.
    static let handMadeGrey = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02,
        0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00, 0x57, 0xDD, 0x52, 0xF8, 0x00, 0x00, 0x00, 0x0E, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0x60, 0xF8, 0xCF, 0xD0, 0xE0, 0x00, 0x00, 0x05, 0x42, 0x01, 0xC0, 0x70, 0x36, 0x36, 0xD6, 0x00,
        0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])
    /// 3×1 palette (red, green, blue) with tRNS (255, 128), made by Python's zlib.
    static let handMadePalette = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x03,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x03, 0x00, 0x00, 0x00, 0x2C, 0x3E, 0xE4, 0x86, 0x00, 0x00, 0x00, 0x09, 0x50, 0x4C, 0x54,
        0x45, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x2D, 0x4A, 0xCD, 0x8A, 0x00, 0x00, 0x00, 0x02, 0x74, 0x52,
        0x4E, 0x53, 0xFF, 0x80, 0x08, 0x0F, 0xB3, 0x6A, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60,
        0x60, 0x64, 0x02, 0x00, 0x00, 0x08, 0x00, 0x04, 0x36, 0xE0, 0xB0, 0xA6, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44,
        0xAE, 0x42, 0x60, 0x82,
    ])

    /// A PNG with the given header and unfiltered rows (filter type 0 each), compressed with `idat`.
    static func makePNG(width: Int, height: Int, colorType: UInt8, bitDepth: UInt8 = 8, interlace: UInt8 = 0,
                        rows: [[UInt8]], extra: [(String, Data)] = [], idat: Data? = nil) throws -> Data {
        var file = Data(PNG.signature)
        var header = Data()
        header.appendUInt32(UInt32(width))
        header.appendUInt32(UInt32(height))
        header.append(contentsOf: [bitDepth, colorType, 0, 0, interlace])
        file.appendChunk("IHDR", header)
        for (type, body) in extra { file.appendChunk(type, body) }
        file.appendChunk("IDAT", try idat ?? Zlib.compress(Data(rows.flatMap { [0] + $0 })))
        file.appendChunk("IEND", Data())
        return file
    }

    @Test func handMadeGreyAndPaletteFilesDecode() throws {
        let grey = try PNG.decode(Self.handMadeGrey)
        #expect(grey.width == 2 && grey.height == 2)
        #expect(grey.pixels == [0, 0, 0, 255, 255, 255, 255, 255, 128, 128, 128, 255, 64, 64, 64, 255])
        let palette = try PNG.decode(Self.handMadePalette)
        #expect(palette.pixels == [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 255])
    }

    @Test func everyEightBitColourTypeDecodes() throws {
        let greyAlpha = try PNG.decode(Self.makePNG(width: 2, height: 1, colorType: 4, rows: [[10, 20, 30, 40]]))
        #expect(greyAlpha.pixels == [10, 10, 10, 20, 30, 30, 30, 40])
        let rgb = try PNG.decode(Self.makePNG(width: 2, height: 1, colorType: 2, rows: [[1, 2, 3, 4, 5, 6]],
                                              extra: [("tRNS", Data([0, 4, 0, 5, 0, 6]))]))
        #expect(rgb.pixels == [1, 2, 3, 255, 4, 5, 6, 0])
        let rgba = try PNG.decode(Self.makePNG(width: 1, height: 2, colorType: 6, rows: [[1, 2, 3, 4], [5, 6, 7, 8]]))
        #expect(rgba.pixels == [1, 2, 3, 4, 5, 6, 7, 8])
        let grey = try PNG.decode(Self.makePNG(width: 1, height: 1, colorType: 0, rows: [[77]], extra: [("tEXt", Data("Comment\0hi".utf8))]))
        #expect(grey.pixels == [77, 77, 77, 255])
    }

    @Test func theEncoderRoundTripsThroughTheDecoder() throws {
        var pixels: [UInt8] = []
        for y in 0..<37 {
            for x in 0..<53 { pixels += [UInt8(x * 4 % 256), UInt8(y * 6 % 256), UInt8((x * y) % 256), UInt8((x + y) * 3 % 256)] }
        }
        let image = RGBAImage(width: 53, height: 37, pixels: pixels)
        let file = try PNG.encode(image)
        #expect(PNG.hasSignature(file))
        #expect(try PNG.decode(file) == image)
        // A flat image compresses: the row filters and deflate are doing their work.
        #expect(try PNG.encode(RGBAImage(width: 500, height: 500, fill: (9, 99, 199, 255))).count < 5_000)
    }

    @Test func aDamagedCRCIsRefused() throws {
        var file = Self.handMadeGrey
        file[30] ^= 0xFF  // inside IHDR's CRC
        #expect(throws: PNGError.corrupt("the CRC of chunk IHDR does not match")) { try PNG.decode(file) }
        var data = Self.handMadeGrey
        data[44] ^= 0x01  // inside the deflate data, with the chunk's CRC made to match again
        let idatStart = 33, length = 14
        let crc = data.subdata(in: (idatStart + 4)..<(idatStart + 8 + length)).crc32(checksum: 0)
        data.replaceSubrange((idatStart + 8 + length)..<(idatStart + 12 + length),
                             with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: PNGError.self) { try PNG.decode(data) }
        #expect(throws: PNGError.notPNG) { try PNG.decode(Data("GIF89a......".utf8)) }
        #expect(throws: PNGError.self) { try PNG.decode(Self.handMadeGrey.prefix(50)) }
    }

    @Test func aDecompressionBombIsRefusedWithoutInflatingIt() throws {
        // 16×16 greyscale needs 272 bytes; this stream inflates to 20 MB of zeros.
        let bomb = try Self.makePNG(width: 16, height: 16, colorType: 0, rows: [], idat: Zlib.compress(Data(count: 20_000_000)))
        #expect(bomb.count < 100_000)
        #expect(throws: PNGError.tooLarge("image data inflates past its 272 bytes")) { try PNG.decode(bomb) }
        // Too few bytes is damage, not a bomb.
        let short = try Self.makePNG(width: 16, height: 16, colorType: 0, rows: [[1, 2, 3]])
        #expect(throws: PNGError.self) { try PNG.decode(short) }
    }

    @Test func oversizedAndUnsupportedImagesAreRefusedClearly() throws {
        #expect(throws: PNGError.tooLarge("the image is 5000×10, at most 4096×4096 is accepted")) {
            try PNG.decode(Self.makePNG(width: 5000, height: 10, colorType: 0, rows: []))
        }
        #expect(throws: PNGError.tooLarge("the file has \(PNG.maxFileBytes + 1) bytes, at most \(PNG.maxFileBytes) are accepted")) {
            try PNG.decode(Data(PNG.signature) + Data(count: PNG.maxFileBytes + 1 - 8))
        }
        #expect(throws: PNGError.unsupported("16-bit samples (only 8-bit images are accepted)")) {
            try PNG.decode(Self.makePNG(width: 1, height: 1, colorType: 0, bitDepth: 16, rows: [[0, 0]]))
        }
        #expect(throws: PNGError.unsupported("interlaced images (save it without interlacing)")) {
            try PNG.decode(Self.makePNG(width: 1, height: 1, colorType: 0, interlace: 1, rows: [[0]]))
        }
    }

    @Test func downscalingKeepsTheAspectRatioAndAveragesTheArea() throws {
        #expect(RGBAImage(width: 1000, height: 500, fill: (0, 0, 0, 255)).downscaled(toWidth: 300).height == 150)
        let thin = RGBAImage(width: 7, height: 3, fill: (0, 0, 0, 255)).downscaled(toWidth: 2)
        #expect(thin.width == 2 && thin.height == 1)
        #expect(RGBAImage(width: 64, height: 64, fill: (1, 2, 3, 4)).downscaled(toWidth: 128).width == 64)
        // Left half red, right half blue: one pixel wide is their average.
        var pixels: [UInt8] = []
        for _ in 0..<10 { for x in 0..<10 { pixels += x < 5 ? [255, 0, 0, 255] : [0, 0, 255, 255] } }
        let halves = RGBAImage(width: 10, height: 10, pixels: pixels)
        #expect(halves.downscaled(toWidth: 1).pixels == [128, 0, 128, 255])
        #expect(halves.downscaled(toWidth: 2).pixels == [255, 0, 0, 255, 0, 0, 255, 255, 255, 0, 0, 255, 0, 0, 255, 255])
        // 3 → 2 covers partial pixels by their share: (0 + 0.5 × 90) / 1.5 = 30.
        let partial = RGBAImage(width: 3, height: 1, pixels: [0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255]).downscaled(toWidth: 2)
        #expect(partial.pixels == [30, 30, 30, 255, 150, 150, 150, 255])
        // Transparent pixels do not darken the colour of the opaque ones they are averaged with.
        let edge = RGBAImage(width: 2, height: 1, pixels: [0, 0, 0, 0, 255, 255, 255, 255]).downscaled(toWidth: 1)
        #expect(edge.pixels == [255, 255, 255, 128])
    }
}
