// An application outside this repository that embeds Photometer through the PhotometerClient
// library (OutsidePackageTests builds it in a package of its own): it reads one photo through a
// photometer-host and prints the value.
//
//   ReadOne HOST PLUGINS.json DATABASE PHOTO
import Foundation
import PhotometerClient
import PhotometerProtocol

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
  FileHandle.standardError.write(Data("usage: ReadOne HOST PLUGINS.json DATABASE PHOTO\n".utf8))
  exit(1)
}
let client = try await HostClient.launch(
  executable: arguments[1], arguments: ["--plugins", arguments[2], "--db", arguments[3]])
let photo = try Data(contentsOf: URL(fileURLWithPath: arguments[4]))
let result = try await client.send(.read(ReadRequest(image: Image(data: [UInt8](photo), name: "photo"))))
print(result.value)
await client.close()
