import Foundation

/// Amounts per period as columns, a standalone SVG document: a counting meter's consumption per
/// day, week or month. The value axis starts at zero (or below, for a negative amount) with
/// round ticks; the periods are labelled below their columns, thinned out to about twelve labels.
public struct ColumnChart: Sendable {
  /// One period's amount.
  public struct Column: Hashable, Sendable {
    public var label: String
    public var value: Double

    public init(label: String, value: Double) {
      self.label = label
      self.value = value
    }
  }

  public var title: String
  public var unit: String
  public var columns: [Column]
  public var width: Int
  public var height: Int

  public init(title: String, unit: String, columns: [Column], width: Int = 800, height: Int = 400) {
    self.title = title
    self.unit = unit
    self.columns = columns
    self.width = max(width, 200)
    self.height = max(height, 150)
  }

  private let left = 72.0, right = 24.0, top = 44.0, bottom = 48.0

  /// The SVG text.
  public var svg: String {
    var parts = [
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(width)" height="\##(height)" viewBox="0 0 \##(width) \##(height)" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"##,
      ##"<rect width="100%" height="100%" fill="#ffffff"/>"##,
      ##"<text x="\##(left)" y="26" font-size="16" font-weight="bold" fill="#222">\##(escapeXML(title))</text>"##,
    ]
    let values = columns.map(\.value).filter(\.isFinite)
    guard !values.isEmpty else {
      parts.append(
        ##"<text x="\##(Double(width) / 2)" y="\##(Double(height) / 2)" text-anchor="middle" fill="#777">No consumption to show</text>"##
      )
      return (parts + ["</svg>"]).joined(separator: "\n") + "\n"
    }
    let (low, high, step) = LineChart.niceRange(min(values.min()!, 0), max(values.max()!, 0))
    let plot = (x: left, y: top, width: Double(width) - left - right, height: Double(height) - top - bottom)
    let y = { (value: Double) in plot.y + plot.height * (1 - (value - low) / (high - low)) }
    for tick in stride(from: low, through: high + step / 2, by: step) {
      parts.append(
        ##"<line x1="\##(format(plot.x))" y1="\##(format(y(tick)))" x2="\##(format(plot.x + plot.width))" y2="\##(format(y(tick)))" stroke="#e4e4e4"/>"##
      )
      parts.append(
        ##"<text x="\##(format(plot.x - 8))" y="\##(format(y(tick) + 4))" text-anchor="end" fill="#444">\##(LineChart.number(tick, step: step))</text>"##
      )
    }
    let pitch = plot.width / Double(columns.count)
    let labelEvery = max(1, Int((Double(columns.count) / 12).rounded(.up)))
    for (index, column) in columns.enumerated() {
      let x = plot.x + pitch * Double(index)
      if column.value.isFinite {
        let (from, to) = (y(max(column.value, 0)), y(min(column.value, 0)))
        parts.append(
          ##"<rect x="\##(format(x + pitch * 0.1))" y="\##(format(from))" width="\##(format(pitch * 0.8))" height="\##(format(to - from))" fill="#1f6feb"><title>\##(escapeXML(column.label)): \##(LineChart.number(column.value, step: step / 10)) \##(escapeXML(unit))</title></rect>"##
        )
      }
      if index % labelEvery == 0 {
        parts.append(
          ##"<text x="\##(format(x + pitch / 2))" y="\##(format(plot.y + plot.height + 18))" text-anchor="middle" fill="#444">\##(escapeXML(column.label))</text>"##
        )
      }
    }
    parts.append(
      ##"<line x1="\##(format(plot.x))" y1="\##(format(y(0)))" x2="\##(format(plot.x + plot.width))" y2="\##(format(y(0)))" stroke="#888"/>"##
    )
    parts.append(
      ##"<text transform="translate(16 \##(format(plot.y + plot.height / 2))) rotate(-90)" text-anchor="middle" fill="#444">\##(escapeXML(unit))</text>"##
    )
    return (parts + ["</svg>"]).joined(separator: "\n") + "\n"
  }

  private func format(_ value: Double) -> String {
    String(format: "%.1f", value)
  }
}
