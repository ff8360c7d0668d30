import PhotometerProtocol
import Testing

@Suite struct CSVTests {
  @Test(arguments: ["=1+2", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx"])
  func aCellASpreadsheetWouldRunIsNeutralised(_ text: String) {
    #expect(CSV.field(text).drop { $0 == "\"" }.hasPrefix("'"), "\(CSV.field(text))")
  }

  @Test(arguments: ["-3.5", "+12", "-0.25", "01234.567", "Gas", "", "a=b"])
  func valuesAndPlainTextStayAsTheyAre(_ text: String) {
    #expect(CSV.field(text) == text)
  }

  @Test func everyFieldReadsBackAsItWas() throws {
    let fields = ["=cmd", "'quoted", "''", "-1", "a,b", "say \"hi\"", "two\nlines", "crlf\r\nend", "@x", ""]
    let text = CSV.line(fields) + CSV.line(["last"])
    #expect(try CSV.parse(text) == [fields, ["last"]])
  }

  @Test func anUnclosedQuoteNamesItsLine() {
    #expect(throws: CSVError(line: 2, problem: "a quoted field is not closed")) {
      try CSV.parse("a,b\n\"open,c\n")
    }
  }
}
