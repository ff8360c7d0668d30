// photometer-digits: the template OCR for meter digits, and `photometer-digits train`, which
// builds its templates from labelled images.
import DigitTemplates
import Foundation
import PluginKit

if CommandLine.arguments.dropFirst().first == "train" {
  exit(Training.run(Array(CommandLine.arguments.dropFirst(2))))
}
exit(PluginServer.run(DigitsRecognizer()))
