import Foundation

/// Pictures for the demo apps, drawn by Souk itself (no downloaded images): a gradient icon with a
/// simple emblem, and screenshots that sketch an app's screens — a list, a grid of tiles, a chart —
/// in the app's own colours. Flat shapes with soft (anti-aliased) edges; no text.
public struct DemoArt: Sendable {
    public typealias Colour = (red: Double, green: Double, blue: Double)

    /// The app's two colours: a light and a dark end of its gradient.
    public var light: Colour
    public var dark: Colour
    /// Which emblem the icon shows (0: ring, 1: bars, 2: diamond, 3: stacked circles).
    public var emblem: Int

    public init(light: Colour, dark: Colour, emblem: Int) {
        self.light = light
        self.dark = dark
        self.emblem = emblem
    }

    /// A square icon, `size` pixels a side.
    public func icon(size: Int = 512) -> RGBAImage {
        var canvas = Canvas(width: size, height: size)
        canvas.gradient(from: light, to: dark, diagonal: true)
        let s = Double(size)
        let white: Colour = (1, 1, 1)
        switch emblem % 4 {
        case 0:
            canvas.circle(x: s / 2, y: s / 2, radius: s * 0.3, colour: white)
            canvas.circle(x: s / 2, y: s / 2, radius: s * 0.18, colour: dark)
        case 1:
            for (index, height) in [0.3, 0.5, 0.4, 0.6].enumerated() {
                canvas.roundedRect(x: s * (0.2 + Double(index) * 0.16), y: s * (0.8 - height), width: s * 0.11, height: s * height,
                                   radius: s * 0.03, colour: white)
            }
        case 2:
            canvas.diamond(x: s / 2, y: s / 2, radius: s * 0.32, colour: white)
            canvas.circle(x: s / 2, y: s / 2, radius: s * 0.09, colour: dark)
        default:
            canvas.circle(x: s * 0.4, y: s * 0.42, radius: s * 0.2, colour: white, alpha: 0.9)
            canvas.circle(x: s * 0.6, y: s * 0.58, radius: s * 0.2, colour: white, alpha: 0.6)
        }
        return canvas.image
    }

    /// A screenshot of screen `index` (0: list, 1: tiles, 2: chart) on a device of this size.
    public func screenshot(index: Int, width: Int, height: Int) -> RGBAImage {
        var canvas = Canvas(width: width, height: height)
        canvas.gradient(from: (0.97, 0.97, 0.98), to: mix(light, (1, 1, 1), 0.75), diagonal: false)
        let w = Double(width), h = Double(height), margin = w * 0.06
        // A bar across the top in the app's dark colour, with a round "avatar".
        canvas.roundedRect(x: 0, y: 0, width: w, height: h * 0.12, radius: 0, colour: dark)
        canvas.circle(x: w - margin * 2, y: h * 0.07, radius: h * 0.025, colour: light)
        canvas.roundedRect(x: margin, y: h * 0.055, width: w * 0.4, height: h * 0.03, radius: h * 0.015, colour: (1, 1, 1), alpha: 0.85)
        let top = h * 0.15
        switch index % 3 {
        case 0:
            let row = (h - top - margin) / 7
            for line in 0..<7 {
                let y = top + Double(line) * row
                canvas.roundedRect(x: margin, y: y, width: w - 2 * margin, height: row * 0.82, radius: row * 0.2, colour: (1, 1, 1))
                canvas.circle(x: margin + row * 0.45, y: y + row * 0.41, radius: row * 0.26, colour: line % 2 == 0 ? light : dark)
                canvas.roundedRect(x: margin + row * 0.9, y: y + row * 0.22, width: (w - 2 * margin - row) * (0.75 - 0.06 * Double(line % 4)),
                                   height: row * 0.14, radius: row * 0.07, colour: (0.25, 0.25, 0.3))
                canvas.roundedRect(x: margin + row * 0.9, y: y + row * 0.48, width: (w - 2 * margin - row) * 0.45,
                                   height: row * 0.1, radius: row * 0.05, colour: (0.6, 0.6, 0.65))
            }
        case 1:
            let columns = w > h ? 4 : 2
            let gap = margin / 2
            let tile = (w - 2 * margin - Double(columns - 1) * gap) / Double(columns)
            var y = top, n = 0
            while y + tile < h - margin {
                for column in 0..<columns {
                    let x = margin + Double(column) * (tile + gap)
                    canvas.roundedRect(x: x, y: y, width: tile, height: tile, radius: tile * 0.12, colour: mix(light, dark, Double(n % 5) / 4))
                    canvas.circle(x: x + tile / 2, y: y + tile / 2, radius: tile * 0.18, colour: (1, 1, 1), alpha: 0.7)
                    n += 1
                }
                y += tile + gap
            }
        default:
            let chartHeight = (h - top) * 0.45
            canvas.roundedRect(x: margin, y: top, width: w - 2 * margin, height: chartHeight, radius: margin / 2, colour: (1, 1, 1))
            let bars = 9
            let slot = (w - 4 * margin) / Double(bars)
            for bar in 0..<bars {
                let value = 0.25 + 0.7 * abs(sin(Double(bar + emblem) * 0.9))
                canvas.roundedRect(x: 2 * margin + Double(bar) * slot + slot * 0.15, y: top + chartHeight * (0.92 - 0.8 * value),
                                   width: slot * 0.7, height: chartHeight * 0.8 * value, radius: slot * 0.15, colour: bar % 2 == 0 ? dark : light)
            }
            let ring = min(w, h - top - chartHeight) * 0.22
            canvas.circle(x: w / 2, y: top + chartHeight + (h - top - chartHeight) / 2, radius: ring, colour: dark)
            canvas.circle(x: w / 2, y: top + chartHeight + (h - top - chartHeight) / 2, radius: ring * 0.6, colour: (0.97, 0.97, 0.98))
        }
        return canvas.image
    }

    func mix(_ a: Colour, _ b: Colour, _ t: Double) -> Colour {
        (a.red + (b.red - a.red) * t, a.green + (b.green - a.green) * t, a.blue + (b.blue - a.blue) * t)
    }

    /// An opaque RGBA drawing surface with coverage-blended shapes.
    struct Canvas {
        var image: RGBAImage

        init(width: Int, height: Int) {
            image = RGBAImage(width: width, height: height, fill: (255, 255, 255, 255))
        }

        mutating func gradient(from start: Colour, to end: Colour, diagonal: Bool) {
            let width = image.width, height = image.height
            let w = Double(width), h = Double(height)
            image.pixels.withUnsafeMutableBufferPointer { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        let t = diagonal ? (Double(x) / w + Double(y) / h) / 2 : Double(y) / h
                        let index = (y * width + x) * 4
                        pixels[index] = UInt8(((start.red + (end.red - start.red) * t) * 255).rounded())
                        pixels[index + 1] = UInt8(((start.green + (end.green - start.green) * t) * 255).rounded())
                        pixels[index + 2] = UInt8(((start.blue + (end.blue - start.blue) * t) * 255).rounded())
                        pixels[index + 3] = 255
                    }
                }
            }
        }

        mutating func circle(x cx: Double, y cy: Double, radius: Double, colour: Colour, alpha: Double = 1) {
            fill(minX: cx - radius, minY: cy - radius, maxX: cx + radius, maxY: cy + radius, colour: colour) { px, py in
                alpha * max(0, min(1, radius - ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot() + 0.5))
            }
        }

        mutating func diamond(x cx: Double, y cy: Double, radius: Double, colour: Colour) {
            fill(minX: cx - radius, minY: cy - radius, maxX: cx + radius, maxY: cy + radius, colour: colour) { px, py in
                max(0, min(1, (radius - abs(px - cx) - abs(py - cy)) * 0.7 + 0.5))
            }
        }

        mutating func roundedRect(x: Double, y: Double, width: Double, height: Double, radius: Double, colour: Colour, alpha: Double = 1) {
            let r = min(radius, width / 2, height / 2)
            fill(minX: x, minY: y, maxX: x + width, maxY: y + height, colour: colour) { px, py in
                // Distance outside the rectangle shrunk by r, compared with r.
                let dx = max(x + r - px, 0, px - (x + width - r)), dy = max(y + r - py, 0, py - (y + height - r))
                let inside = max(0, min(1, min(px - x, x + width - px, py - y, y + height - py) + 0.5))
                return alpha * (dx > 0 && dy > 0 ? max(0, min(1, r - (dx * dx + dy * dy).squareRoot() + 0.5)) : inside)
            }
        }

        private mutating func fill(minX: Double, minY: Double, maxX: Double, maxY: Double, colour: Colour,
                                   coverage: (Double, Double) -> Double) {
            let x0 = max(0, Int(minX.rounded(.down))), x1 = min(image.width - 1, Int(maxX.rounded(.up)))
            let y0 = max(0, Int(minY.rounded(.down))), y1 = min(image.height - 1, Int(maxY.rounded(.up)))
            guard x0 <= x1, y0 <= y1 else { return }
            for y in y0...y1 {
                for x in x0...x1 {
                    let amount = coverage(Double(x) + 0.5, Double(y) + 0.5)
                    if amount > 0 { set(x, y, colour, coverage: amount) }
                }
            }
        }

        private mutating func set(_ x: Int, _ y: Int, _ colour: Colour, coverage: Double) {
            let index = (y * image.width + x) * 4
            image.pixels[index] = Self.blend(image.pixels[index], colour.red, coverage)
            image.pixels[index + 1] = Self.blend(image.pixels[index + 1], colour.green, coverage)
            image.pixels[index + 2] = Self.blend(image.pixels[index + 2], colour.blue, coverage)
            image.pixels[index + 3] = 255
        }

        private static func blend(_ old: UInt8, _ value: Double, _ coverage: Double) -> UInt8 {
            let old = Double(old)
            return UInt8(max(0, min(255, (old + (value * 255 - old) * coverage).rounded())))
        }
    }
}
