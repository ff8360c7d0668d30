// photometer-histogram: which meter is this, by colour histograms (OpenCV).
import PluginKit

#if canImport(Glibc)
  import Glibc
#endif

exit(PluginServer.run(HistogramRecognizer()))
