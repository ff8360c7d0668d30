import Foundation

/// Grouped horizontal bars as a standalone SVG document: one group per item (an engine), one bar
/// per series (exact match, per digit...), each labelled with its value. Values are fractions,
/// drawn as percentages on a 0-100% axis.
public struct BarChart: Sendable {
  public struct Series: Sendable {
    public var name: String
    public var colour: String
    /// One value, 0 to 1, per item; nil leaves the bar out.
    public var values: [Double?]

    public init(name: String, colour: String, values: [Double?]) {
      self.name = name
      self.colour = colour
      self.values = values
    }
  }

  public var title: String
  public var items: [String]
  public var series: [Series]
  public var width: Int

  public init(title: String, items: [String], series: [Series], width: Int = 720) {
    self.title = title
    self.items = items
    self.series = series
    self.width = max(width, 320)
  }

  private let left = 130.0, right = 70.0, top = 60.0, bar = 16.0, gap = 14.0

  private var groupHeight: Double { Double(series.count) * bar + gap }

  public var height: Int { Int(top + Double(items.count) * groupHeight + 36) }

  /// The SVG text.
  public var svg: String {
    let plot = Double(width) - left - right
    var parts = [
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"##,
      ##"<rect width="100%" height="100%" fill="#ffffff"/>"##,
      ##"<text x="12" y="24" font-size="16" font-weight="bold" fill="#222">\##(escapeXML(title))</text>"##,
    ]
    // The legend, then the 0-100% grid.
    var x = left
    for entry in series {
      parts.append(##"<rect x="\##(x)" y="36" width="12" height="12" fill="\##(entry.colour)"/>"##)
      parts.append(##"<text x="\##(x + 16)" y="46" fill="#222">\##(escapeXML(entry.name))</text>"##)
      x += 24 + Double(entry.name.count) * 7
    }
    let bottom = top + Double(items.count) * groupHeight
    for tick in stride(from: 0, through: 100, by: 20) {
      let tx = left + plot * Double(tick) / 100
      parts.append(##"<line x1="\##(tx)" y1="\##(top - 4)" x2="\##(tx)" y2="\##(bottom)" stroke="#e0e0e0"/>"##)
      parts.append(##"<text x="\##(tx)" y="\##(bottom + 16)" text-anchor="middle" fill="#555">\##(tick)%</text>"##)
    }
    for (row, item) in items.enumerated() {
      let y = top + Double(row) * groupHeight
      parts.append(
        ##"<text x="\##(left - 8)" y="\##(y + Double(series.count) * bar / 2 + 4)" text-anchor="end" fill="#222">\##(escapeXML(item))</text>"##
      )
      for (index, entry) in series.enumerated() {
        guard row < entry.values.count, let value = entry.values[row], value.isFinite else { continue }
        let length = plot * min(max(value, 0), 1)
        let by = y + Double(index) * bar
        parts.append(
          ##"<rect x="\##(left)" y="\##(by)" width="\##(length)" height="\##(bar - 2)" fill="\##(entry.colour)"/>"##)
        parts.append(
          ##"<text x="\##(left + length + 4)" y="\##(by + bar - 5)" fill="#222">\##(String(format: "%.1f%%", 100 * value))</text>"##
        )
      }
    }
    parts.append("</svg>")
    return parts.joined(separator: "\n") + "\n"
  }
}

/// Text made safe for SVG content and attributes.
func escapeXML(_ text: String) -> String {
  text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
