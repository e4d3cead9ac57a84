import Foundation
import ZIPFoundation

extension PNG {
    /// The header (`IHDR`) of a PNG this decoder accepts.
    struct Header {
        var width: Int
        var height: Int
        var colorType: UInt8
        /// Bytes per pixel of the stored (filtered) data.
        var channels: Int {
            switch colorType {
            case 0, 3: 1
            case 4: 2
            case 2: 3
            default: 4
            }
        }
    }

    /// Decodes a PNG into RGBA pixels, or says why it cannot.
    public static func decode(_ file: Data) throws(PNGError) -> RGBAImage {
        let data = Data(file)
        guard data.count <= maxFileBytes else { throw .tooLarge("the file has \(data.count) bytes, at most \(maxFileBytes) are accepted") }
        guard hasSignature(data) else { throw .notPNG }
        var offset = 8
        var header: Header?
        var palette: [UInt8] = []
        var transparency: [UInt8] = []
        var imageData = Data()
        var ended = false
        while !ended {
            guard offset + 12 <= data.count else { throw .corrupt("the file ends inside a chunk") }
            let length = Int(readUInt32(data, at: offset))
            guard length <= data.count - offset - 12 else { throw .corrupt("a chunk runs past the end of the file") }
            let typeAndBody = data.subdata(in: (offset + 4)..<(offset + 8 + length))
            let type = String(decoding: typeAndBody.prefix(4), as: UTF8.self)
            let body = typeAndBody.subdata(in: 4..<typeAndBody.count)
            guard typeAndBody.crc32(checksum: 0) == readUInt32(data, at: offset + 8 + length) else {
                throw .corrupt("the CRC of chunk \(type) does not match")
            }
            offset += 12 + length
            if header == nil && type != "IHDR" { throw .corrupt("the first chunk is \(type), not IHDR") }
            switch type {
            case "IHDR":
                guard header == nil else { throw .corrupt("two IHDR chunks") }
                header = try readHeader(body)
            case "PLTE":
                guard body.count % 3 == 0, (3...768).contains(body.count) else { throw .corrupt("PLTE has \(body.count) bytes") }
                palette = Array(body)
            case "tRNS":
                transparency = Array(body)
            case "IDAT":
                guard imageData.count + body.count <= maxFileBytes else { throw .tooLarge("image data") }
                imageData.append(body)
            case "IEND":
                ended = true
            default:
                // Ancillary chunks (lower-case first letter) may be skipped; critical ones may not.
                guard let first = typeAndBody.first, first & 0x20 != 0 else { throw .unsupported("critical chunk \(type)") }
            }
        }
        guard let header else { throw .corrupt("no IHDR chunk") }
        guard !imageData.isEmpty else { throw .corrupt("no IDAT chunk") }
        let stride = header.width * header.channels
        let filtered = try Zlib.decompress(imageData, expected: header.height * (stride + 1))
        let raw = try unfilter(filtered, height: header.height, stride: stride, bytesPerPixel: header.channels)
        return try expand(raw, header: header, palette: palette, transparency: transparency)
    }

    static func readUInt32(_ data: Data, at offset: Int) -> UInt32 {
        data[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    static func readHeader(_ body: Data) throws(PNGError) -> Header {
        guard body.count == 13 else { throw .corrupt("IHDR has \(body.count) bytes") }
        let width = Int(readUInt32(body, at: 0)), height = Int(readUInt32(body, at: 4))
        let bitDepth = body[8], colorType = body[9]
        guard width > 0, height > 0 else { throw .corrupt("the image is \(width)×\(height)") }
        guard width <= maxDimension, height <= maxDimension else {
            throw .tooLarge("the image is \(width)×\(height), at most \(maxDimension)×\(maxDimension) is accepted")
        }
        guard [0, 2, 3, 4, 6].contains(colorType) else { throw .corrupt("colour type \(colorType)") }
        guard bitDepth == 8 else { throw .unsupported("\(bitDepth)-bit samples (only 8-bit images are accepted)") }
        guard body[10] == 0, body[11] == 0 else { throw .corrupt("unknown compression or filter method") }
        guard body[12] == 0 else { throw .unsupported("interlaced images (save it without interlacing)") }
        return Header(width: width, height: height, colorType: colorType)
    }

    /// Reverses the per-row filters (PNG §9).
    static func unfilter(_ filtered: Data, height: Int, stride: Int, bytesPerPixel bpp: Int) throws(PNGError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: height * stride)
        var failure: PNGError?
        filtered.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let filter = input[y * (stride + 1)]
                    let source = y * (stride + 1) + 1
                    let row = y * stride
                    guard filter <= 4 else {
                        failure = .corrupt("row \(y) has filter type \(filter)")
                        return
                    }
                    for x in 0..<stride {
                        let value = input[source + x]
                        let left = x >= bpp ? out[row + x - bpp] : 0
                        let up = y > 0 ? out[row - stride + x] : 0
                        switch filter {
                        case 0: out[row + x] = value
                        case 1: out[row + x] = value &+ left
                        case 2: out[row + x] = value &+ up
                        case 3: out[row + x] = value &+ UInt8((Int(left) + Int(up)) >> 1)
                        default: out[row + x] = value &+ paeth(left, up, x >= bpp && y > 0 ? out[row - stride + x - bpp] : 0)
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
        return out
    }

    static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    /// Turns unfiltered samples of any accepted colour type into RGBA.
    static func expand(_ raw: [UInt8], header: Header, palette: [UInt8], transparency: [UInt8]) throws(PNGError) -> RGBAImage {
        let count = header.width * header.height
        var pixels = [UInt8](repeating: 255, count: count * 4)
        switch header.colorType {
        case 0:
            let key: Int? = transparency.count >= 2 ? Int(transparency[0]) << 8 | Int(transparency[1]) : nil
            for i in 0..<count {
                let grey = raw[i]
                pixels[i * 4] = grey; pixels[i * 4 + 1] = grey; pixels[i * 4 + 2] = grey
                if key == Int(grey) { pixels[i * 4 + 3] = 0 }
            }
        case 2:
            let key: [UInt8]? = transparency.count >= 6 ? [transparency[1], transparency[3], transparency[5]] : nil
            for i in 0..<count {
                pixels[i * 4] = raw[i * 3]; pixels[i * 4 + 1] = raw[i * 3 + 1]; pixels[i * 4 + 2] = raw[i * 3 + 2]
                if let key, key[0] == raw[i * 3], key[1] == raw[i * 3 + 1], key[2] == raw[i * 3 + 2] { pixels[i * 4 + 3] = 0 }
            }
        case 3:
            guard !palette.isEmpty else { throw .corrupt("a palette image without PLTE") }
            let entries = palette.count / 3
            for i in 0..<count {
                let index = Int(raw[i])
                guard index < entries else { throw .corrupt("palette index \(index) past the \(entries) entries") }
                pixels[i * 4] = palette[index * 3]; pixels[i * 4 + 1] = palette[index * 3 + 1]; pixels[i * 4 + 2] = palette[index * 3 + 2]
                pixels[i * 4 + 3] = index < transparency.count ? transparency[index] : 255
            }
        case 4:
            for i in 0..<count {
                pixels[i * 4] = raw[i * 2]; pixels[i * 4 + 1] = raw[i * 2]; pixels[i * 4 + 2] = raw[i * 2]
                pixels[i * 4 + 3] = raw[i * 2 + 1]
            }
        default:
            pixels = raw
        }
        return RGBAImage(width: header.width, height: header.height, pixels: pixels)
    }
}
