// photometer-reader: the sequence digit reader as a read plugin.
import Foundation
import PluginKit

exit(PluginServer.run(ReaderRecognizer()))
