extension RGBAImage {
    /// The image scaled down to `targetWidth` pixels wide, the height keeping the aspect ratio
    /// (rounded, at least 1). Each output pixel is the average of the source area it covers,
    /// counting partly covered pixels by their share, with colour weighted by alpha so transparent
    /// edges do not darken. An image already this narrow or narrower is returned as it is.
    public func downscaled(toWidth targetWidth: Int) -> RGBAImage {
        guard targetWidth > 0, targetWidth < width else { return self }
        let targetHeight = Swift.max(1, Int((Double(height) * Double(targetWidth) / Double(width)).rounded()))
        let columns = Self.coverage(source: width, target: targetWidth)
        let rows = Self.coverage(source: height, target: targetHeight)
        var out = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        var line = [Double](repeating: 0, count: width * 4)
        let width = self.width
        pixels.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer { out in
                line.withUnsafeMutableBufferPointer { line in
                    for (outY, sourceRows) in rows.enumerated() {
                        for index in 0..<line.count { line[index] = 0 }
                        // Sum the covered source rows into one line of premultiplied colour.
                        for (y, weight) in sourceRows {
                            let base = y * width * 4
                            for x in 0..<width {
                                let alpha = weight * Double(pixels[base + x * 4 + 3])
                                line[x * 4] += alpha * Double(pixels[base + x * 4])
                                line[x * 4 + 1] += alpha * Double(pixels[base + x * 4 + 1])
                                line[x * 4 + 2] += alpha * Double(pixels[base + x * 4 + 2])
                                line[x * 4 + 3] += alpha
                            }
                        }
                        for (outX, sourceColumns) in columns.enumerated() {
                            var sum = (0.0, 0.0, 0.0, 0.0)
                            for (x, weight) in sourceColumns {
                                sum.0 += weight * line[x * 4]
                                sum.1 += weight * line[x * 4 + 1]
                                sum.2 += weight * line[x * 4 + 2]
                                sum.3 += weight * line[x * 4 + 3]
                            }
                            let target = (outY * targetWidth + outX) * 4
                            if sum.3 > 0 {
                                out[target] = Self.clamp(sum.0 / sum.3)
                                out[target + 1] = Self.clamp(sum.1 / sum.3)
                                out[target + 2] = Self.clamp(sum.2 / sum.3)
                            }
                            out[target + 3] = Self.clamp(sum.3)
                        }
                    }
                }
            }
        }
        return RGBAImage(width: targetWidth, height: targetHeight, pixels: out)
    }

    /// For each target pixel, the source pixels it covers and their weights (summing to 1).
    static func coverage(source: Int, target: Int) -> [[(Int, Double)]] {
        let scale = Double(source) / Double(target)
        return (0..<target).map { index in
            let start = Double(index) * scale, end = Double(index + 1) * scale
            var spans: [(Int, Double)] = []
            var position = Int(start)
            while Double(position) < end && position < source {
                let covered = Swift.min(end, Double(position + 1)) - Swift.max(start, Double(position))
                if covered > 1e-9 { spans.append((position, covered / scale)) }
                position += 1
            }
            return spans
        }
    }

    static func clamp(_ value: Double) -> UInt8 {
        UInt8(Swift.max(0, Swift.min(255, value.rounded())))
    }
}
