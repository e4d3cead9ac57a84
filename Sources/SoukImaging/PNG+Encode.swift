import Foundation
import ZIPFoundation

extension PNG {
    /// Encodes RGBA pixels as a PNG (colour type 6, 8-bit, not interlaced). Each row takes the
    /// filter whose output has the smallest sum of absolute values (the usual heuristic, PNG §12.8).
    public static func encode(_ image: RGBAImage) throws -> Data {
        let stride = image.width * 4
        var filtered = [UInt8](repeating: 0, count: image.height * (stride + 1))
        var candidate = [UInt8](repeating: 0, count: stride)
        image.pixels.withUnsafeBufferPointer { pixels in
            filtered.withUnsafeMutableBufferPointer { output in
                candidate.withUnsafeMutableBufferPointer { candidate in
                    for y in 0..<image.height {
                        let row = y * stride
                        let target = y * (stride + 1)
                        var bestCost = Int.max
                        for filter: UInt8 in 0...4 {
                            var cost = 0
                            for x in 0..<stride {
                                let value = pixels[row + x]
                                let left = x >= 4 ? pixels[row + x - 4] : 0
                                let up = y > 0 ? pixels[row - stride + x] : 0
                                let out: UInt8
                                switch filter {
                                case 0: out = value
                                case 1: out = value &- left
                                case 2: out = value &- up
                                case 3: out = value &- UInt8((Int(left) + Int(up)) >> 1)
                                default: out = value &- paeth(left, up, x >= 4 && y > 0 ? pixels[row - stride + x - 4] : 0)
                                }
                                candidate[x] = out
                                cost += out < 128 ? Int(out) : 256 - Int(out)
                            }
                            if cost < bestCost {
                                bestCost = cost
                                output[target] = filter
                                for x in 0..<stride { output[target + 1 + x] = candidate[x] }
                            }
                        }
                    }
                }
            }
        }
        var file = Data(signature)
        var header = Data()
        header.appendUInt32(UInt32(image.width))
        header.appendUInt32(UInt32(image.height))
        header.append(contentsOf: [8, 6, 0, 0, 0])
        file.appendChunk("IHDR", header)
        file.appendChunk("IDAT", try Zlib.compress(Data(filtered)))
        file.appendChunk("IEND", Data())
        return file
    }
}

extension Data {
    mutating func appendUInt32(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    /// Appends one PNG chunk: length, type, body, CRC-32 of type and body.
    mutating func appendChunk(_ type: String, _ body: Data) {
        appendUInt32(UInt32(body.count))
        let typeAndBody = Data(type.utf8) + body
        append(typeAndBody)
        appendUInt32(typeAndBody.crc32(checksum: 0))
    }
}
