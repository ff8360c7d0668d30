import Foundation
import FoundationXML
import Testing

@testable import PhotometerCharts

@Suite struct LineChartTests {
  let day: Int64 = 86_400_000
  let start: Int64 = 1_793_491_200_000  // 2026-11-01T00:00Z

  @Test func drawsTheReadingsWithAxesDatesAndTheUnit() throws {
    let points = (0..<6).map { LineChart.Point(time: start + Int64($0) * 3 * day, value: 1000 + Double($0) * 9.5) }
    let svg = LineChart(title: "Gas <cellar>", unit: "m3", points: points, timeZone: TimeZone(identifier: "UTC")!).svg
    #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400""#))
    #expect(svg.hasSuffix("</svg>\n"))
    #expect(svg.contains("Gas &lt;cellar&gt;"))
    #expect(svg.contains(">m3</text>"))
    #expect(svg.contains(">Nov 8</text>"))
    #expect(svg.components(separatedBy: "<circle").count - 1 == 6)
    #expect(svg.contains(">1000</text>") && svg.contains(">1050</text>"))
    // The document parses as XML.
    _ = try XMLDocument(xmlString: svg)
  }

  @Test func saysSoWhenThereAreNoReadings() {
    let svg = LineChart(title: "Empty", unit: "kWh", points: [], timeZone: .current).svg
    #expect(svg.contains("No readings"))
  }

  @Test func handlesASingleReadingAndAFlatLine() throws {
    let one = LineChart(
      title: "One", unit: "C", points: [LineChart.Point(time: start, value: 36.6)], timeZone: .current
    ).svg
    _ = try XMLDocument(xmlString: one)
    #expect(!one.contains("nan"))
    let flat = (0..<3).map { LineChart.Point(time: start + Int64($0) * day, value: 5) }
    let svg = LineChart(title: "Flat", unit: "C", points: flat, timeZone: .current).svg
    #expect(!svg.contains("nan") && !svg.contains("inf"))
  }

  @Test func labelsAnAxisSpanningCenturiesAcrossItsWholeSpan() throws {
    let points = [
      LineChart.Point(time: -2_208_988_800_000, value: 1),  // 1900-01-01
      LineChart.Point(time: start, value: 2),  // 2026
    ]
    let svg = LineChart(title: "Old", unit: "m3", points: points, timeZone: TimeZone(identifier: "UTC")!).svg
    let years = svg.matches(of: /\>(\d{4})<\/text>/).compactMap { Int($0.output.1) }
    #expect(years == [1900, 1920, 1940, 1960, 1980, 2000, 2020], "\(years)")
    #expect(LineChart.yearStep(3) == 1 && LineChart.yearStep(126) == 20 && LineChart.yearStep(9000) == 2000)
    _ = try XMLDocument(xmlString: svg)
  }

  @Test func picksRoundTicks() {
    #expect(LineChart.niceRange(1003.5, 1060.5) == (1000, 1080, 20))
    let (low, high, step) = LineChart.niceRange(5.05, 6.11)
    #expect(low == 5 && high == 6.5 && step == 0.5)
  }
}

@Suite struct ColumnChartTests {
  @Test func drawsAColumnPerPeriodFromZero() {
    let chart = ColumnChart(
      title: "Gas: consumption per day", unit: "m3",
      columns: [.init(label: "Nov 1", value: 5), .init(label: "Nov 2", value: 0), .init(label: "Nov 3", value: 12.5)])
    let svg = chart.svg
    #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
    #expect(svg.components(separatedBy: "<rect x=").count - 1 == 3)
    #expect(svg.contains(">Nov 3</text>") && svg.contains("Nov 3: 12.5 m3"))
    // The axis starts at zero, whatever the smallest amount.
    #expect(svg.contains(">0</text>"))
    #expect(ColumnChart(title: "Empty", unit: "m3", columns: []).svg.contains("No consumption to show"))
  }

  @Test func thinsOutThePeriodLabels() {
    let columns = (0..<60).map { ColumnChart.Column(label: "d\($0)", value: Double($0)) }
    let svg = ColumnChart(title: "t", unit: "L", columns: columns).svg
    #expect(svg.components(separatedBy: "<rect x=").count - 1 == 60)
    #expect(svg.components(separatedBy: ##"fill="#444">d"##).count - 1 == 12)
  }
}

@Suite struct BarChartTests {
  @Test func drawsOneBarPerSeriesAndItemWithItsValue() {
    let chart = BarChart(
      title: "Engines <test>", items: ["digits", "tesseract"],
      series: [
        .init(name: "exact", colour: "#2b6cb0", values: [0.93, 0.2]),
        .init(name: "per digit", colour: "#68d391", values: [0.99, nil]),
      ])
    let svg = chart.svg
    #expect(svg.hasPrefix("<svg"))
    #expect(svg.contains("Engines &lt;test&gt;"))
    #expect(svg.components(separatedBy: "height=\"14.0\"").count - 1 == 3)
    #expect(svg.contains("93.0%"))
    #expect(svg.contains("20.0%"))
    #expect(svg.contains("99.0%"))
  }
}
