// photometer-keypoints: which meter is this, by ORB keypoints and a homography (OpenCV).
import PluginKit

#if canImport(Glibc)
  import Glibc
#endif

exit(PluginServer.run(KeypointRecognizer()))
