// photometer-tesseract: reads meter digits with Tesseract's C API.
import PluginKit
import TesseractEngine

#if canImport(Glibc)
  import Glibc
#endif

TesseractEngine.runSingleThreaded()
exit(PluginServer.run(TesseractRecognizer()))
