// photometer-dials: the pointer dial reader as a plugin of the dials role.
import Foundation
import PluginKit

exit(PluginServer.run(DialsRecognizer()))
