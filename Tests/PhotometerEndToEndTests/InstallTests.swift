import Foundation
import TestSupport
import Testing

/// `Tools/install` into a temporary prefix, and the installed programs used as a user would:
/// from a folder outside the repository, with no configuration of their own and a bare `PATH`.
@Suite struct InstallTests {
  @Test func theInstalledProgramsReadAPhotoFromOutsideTheRepository() async throws {
    let temporary = Scratch.folder
    let prefix = temporary.appendingPathComponent("photometer-prefix-\(UUID())").path
    let home = temporary.appendingPathComponent("photometer-home-\(UUID())").path
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    defer {
      try? FileManager.default.removeItem(atPath: prefix)
      try? FileManager.default.removeItem(atPath: home)
    }
    let install = try await runCommand(
      "/bin/bash", ["\(Products.repository)/Tools/install", "--from", Products.buildFolder, prefix])
    #expect(install.status == 0, "\(install.standardError)")

    // The plugins it installed, by absolute path; the Python example stays in the repository.
    let lib = "\(prefix)/lib/photometer"
    let installed = URL(fileURLWithPath: "\(lib)/plugins.json")
    let configuration = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: installed)) as? [String: Any])
    let plugins = try #require(configuration["plugins"] as? [[String: Any]])
    #expect(
      plugins.compactMap { $0["name"] as? String } == [
        "reader", "dials", "tesseract", "keypoints", "histogram",
      ])
    for plugin in plugins {
      let command = try #require((plugin["command"] as? [String])?.first)
      #expect(command == "\(lib)/photometer-\(plugin["name"] as? String ?? "")")
    }
    // The shipped timeouts are for a machine at rest: beside other tests and a training on 2
    // cores, a plugin's first answer (its models loaded) took over 10 s.
    try Products.patient(String(contentsOf: installed, encoding: .utf8)).write(
      to: installed, atomically: true, encoding: .utf8)
    for file in [
      "Photometer_DigitReader.resources/digit-reader.onnx", "Photometer_DigitReader.resources/digit-cells.onnx",
      "../../share/bash-completion/completions/photometer", "../../share/zsh/site-functions/_photometer-host",
    ] {
      #expect(FileManager.default.fileExists(atPath: "\(lib)/\(file)"), "\(file)")
    }

    let environment = [
      "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": "\(home)/config", "XDG_DATA_HOME": "\(home)/data",
    ]
    let photometer = "\(prefix)/bin/photometer"
    let version = try await runCommand(photometer, ["--version"], directory: home, environment: environment)
    #expect(version.status == 0 && version.standardOutput.first?.isNumber == true, "\(version.standardError)")
    let counters = try await Rendered.digits("wheels", count: 3, seed: 17)
    let truth = try Rendered.rows(counters.appendingPathComponent("labels.csv"))
    let read = try await runCommand(
      photometer, ["read", "--json", "--shadows"] + truth.map { counters.appendingPathComponent($0[0]).path },
      directory: home,
      environment: environment)
    #expect(read.status == 0, "\(read.standardError)")
    let answers = try read.lines.map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(answers.map { $0["value"] as? String } == truth.map { $0[1] })
    // Every installed read plugin answered (the reader's models found).
    for answer in answers {
      let engines = try #require(answer["engines"] as? [[String: Any]])
      #expect(engines.compactMap { $0["engine"] as? String } == ["reader", "tesseract"])
      #expect(engines.allSatisfy { $0["error"] == nil }, "\(engines)")
    }
    // The store is the user's default one, made on first use.
    let meters = try await runCommand(photometer, ["meter", "list"], directory: home, environment: environment)
    #expect(meters.status == 0, "\(meters.standardError)")
    #expect(FileManager.default.fileExists(atPath: "\(home)/data/photometer/photometer.sqlite"))
  }
}
