// photometer-testplugin: a recognizer for tests and demos whose behaviour options choose.
import PluginKit

#if canImport(Glibc)
  import Glibc
#endif

exit(PluginServer.run(TestRecognizer()))
