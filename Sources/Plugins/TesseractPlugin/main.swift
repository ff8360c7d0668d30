// photometer-tesseract: reads meter digits with Tesseract's C API.
import PluginKit

#if canImport(Glibc)
  import Glibc
#endif

exit(PluginServer.run(TesseractRecognizer()))
