// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Photometer",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "photometer", targets: ["PhotometerCLI"]),
    .executable(name: "photometer-host", targets: ["PhotometerHostMain"]),
    .executable(name: "photometer-testplugin", targets: ["TestPlugin"]),
    .executable(name: "photometer-histogram", targets: ["HistogramPlugin"]),
    .executable(name: "photometer-keypoints", targets: ["KeypointPlugin"]),
    .executable(name: "photometer-tesseract", targets: ["TesseractPlugin"]),
    .executable(name: "photometer-reader", targets: ["ReaderPlugin"]),
    .executable(name: "photometer-dials", targets: ["DialsPlugin"]),
    .executable(name: "photometer-benchmark-protocol", targets: ["ProtocolBenchmark"]),
    .executable(name: "photometer-benchmark-identify", targets: ["IdentifyBenchmark"]),
    .executable(name: "photometer-benchmark-read", targets: ["ReadBenchmark"]),
    .executable(name: "photometer-benchmark-batch", targets: ["BatchBenchmark"]),
    .executable(name: "photometer-benchmark-load", targets: ["LoadBenchmark"]),
    .executable(name: "photometer-benchmark-dials", targets: ["DialBenchmark"]),
    .executable(name: "photometer-benchmark-find", targets: ["FindBenchmark"]),
    .library(name: "PhotometerProtocol", targets: ["PhotometerProtocol"]),
    .library(name: "PhotometerClient", targets: ["PhotometerClient"]),
    .library(name: "PluginKit", targets: ["PluginKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
  ],
  targets: [
    // MARK: Protocol

    .target(
      name: "CPhotometerProtocol",
      path: "Sources/Protocol/CPhotometerProtocol",
      linkerSettings: [.linkedLibrary("protobuf-c")]
    ),
    .target(
      name: "PhotometerProtocol",
      dependencies: ["CPhotometerProtocol"],
      path: "Sources/Protocol/PhotometerProtocol"
    ),

    // MARK: Host

    .target(name: "CSpawn", path: "Sources/Host/CSpawn"),
    .systemLibrary(name: "COpenSSL", path: "Sources/Host/COpenSSL", pkgConfig: "libcrypto"),
    .target(
      name: "ChildProcess",
      dependencies: ["CSpawn", .product(name: "Logging", package: "swift-log")],
      path: "Sources/Host/ChildProcess"
    ),
    .target(name: "PhotometerImages", path: "Sources/Host/PhotometerImages"),
    .target(name: "PhotometerCharts", path: "Sources/Host/PhotometerCharts"),
    .target(
      name: "PhotometerStore",
      dependencies: [
        "PhotometerProtocol", "PhotometerImages", "PhotometerDigest", .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Sources/Host/PhotometerStore"
    ),
    .target(
      name: "PhotometerVoting",
      dependencies: ["PhotometerProtocol"],
      path: "Sources/Host/PhotometerVoting"
    ),
    .target(
      name: "PhotometerScoring",
      dependencies: ["PhotometerProtocol"],
      path: "Sources/Host/PhotometerScoring"
    ),
    .target(
      name: "PhotometerDigest",
      dependencies: ["PhotometerProtocol", "COpenSSL"],
      path: "Sources/Host/PhotometerDigest"
    ),
    .target(
      name: "PluginSupervisor",
      dependencies: [
        "PhotometerProtocol", "ChildProcess", "PhotometerDigest",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/Host/PluginSupervisor"
    ),
    .target(
      name: "PhotometerHost",
      dependencies: [
        "PhotometerProtocol", "ChildProcess", "PluginSupervisor", "PhotometerDigest", "PhotometerVoting",
        "PhotometerImages", "PhotometerStore", "PhotometerCharts", "PhotometerVision", "DigitReader",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/Host/PhotometerHost"
    ),
    .executableTarget(
      name: "PhotometerHostMain",
      dependencies: [
        "PhotometerHost", "PhotometerStore", "ChildProcess",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/Host/HostMain"
    ),
    .target(
      name: "PhotometerClient",
      dependencies: ["PhotometerProtocol", "ChildProcess", .product(name: "Logging", package: "swift-log")],
      path: "Sources/Host/PhotometerClient"
    ),
    .executableTarget(
      name: "PhotometerCLI",
      dependencies: [
        "PhotometerClient", "PhotometerScoring", "PhotometerCharts", "PhotometerStore", "PhotometerImages",
        "ChildProcess", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/Host/CLI"
    ),
    .executableTarget(
      name: "ProtocolBenchmark",
      dependencies: [
        "PhotometerProtocol", "PluginSupervisor", "ChildProcess", .product(name: "Logging", package: "swift-log"),
      ],
      path: "Sources/Host/Benchmarks/ProtocolBenchmark"
    ),
    .executableTarget(
      name: "BatchBenchmark",
      dependencies: ["PhotometerClient", "PhotometerProtocol", "PhotometerScoring", "ChildProcess"],
      path: "Sources/Host/Benchmarks/BatchBenchmark"
    ),
    .executableTarget(
      name: "LoadBenchmark",
      dependencies: ["PhotometerClient", "PhotometerProtocol", "PhotometerScoring", "ChildProcess"],
      path: "Sources/Host/Benchmarks/LoadBenchmark"
    ),
    .executableTarget(
      name: "IdentifyBenchmark",
      dependencies: [
        "MeterMatchers", "PhotometerDigest", "PhotometerVision", "PhotometerVoting", "PhotometerProtocol",
        "PluginSupervisor", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/Host/Benchmarks/IdentifyBenchmark"
    ),
    .executableTarget(
      name: "ReadBenchmark",
      dependencies: [
        "DigitReader", "TesseractEngine", "PhotometerVision", "PhotometerVoting",
        "PhotometerProtocol", "PhotometerScoring", "PluginSupervisor",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/Host/Benchmarks/ReadBenchmark"
    ),
    .executableTarget(
      name: "DialBenchmark",
      dependencies: [
        "DigitReader", "PhotometerClient", "PhotometerVision", "PhotometerVoting", "PhotometerProtocol",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/Host/Benchmarks/DialBenchmark"
    ),
    .executableTarget(
      name: "FindBenchmark",
      dependencies: [
        "DigitReader", "PhotometerClient", "PhotometerVision", "PhotometerVoting", "PhotometerProtocol",
        "PhotometerScoring",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Sources/Host/Benchmarks/FindBenchmark"
    ),

    // MARK: Plugins

    .target(
      name: "CPhotometerVision",
      path: "Sources/Plugins/CPhotometerVision",
      exclude: ["opencv4"],
      cxxSettings: [.headerSearchPath("opencv4")],
      linkerSettings: [
        // Only the OpenCV libraries in use: `pkg-config opencv4` would load all 55 of them (0.29 s
        // and 129 MB per process instead of 0.09 s and 68 MB).
        .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_imgcodecs"),
        .linkedLibrary("opencv_features2d"), .linkedLibrary("opencv_calib3d"),
        .linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_video"),
      ]
    ),
    .target(
      name: "PhotometerVision",
      dependencies: ["CPhotometerVision", "PhotometerProtocol"],
      path: "Sources/Plugins/PhotometerVision"
    ),
    .target(
      name: "MeterMatchers",
      dependencies: ["PhotometerVision", "PhotometerProtocol"],
      path: "Sources/Plugins/MeterMatchers"
    ),

    .target(
      name: "PluginKit",
      dependencies: ["PhotometerProtocol"],
      path: "Sources/Plugins/PluginKit"
    ),
    .executableTarget(
      name: "HistogramPlugin",
      dependencies: ["PluginKit", "MeterMatchers", "PhotometerVision"],
      path: "Sources/Plugins/HistogramPlugin"
    ),
    .executableTarget(
      name: "KeypointPlugin",
      dependencies: ["PluginKit", "MeterMatchers", "PhotometerVision"],
      path: "Sources/Plugins/KeypointPlugin"
    ),
    .systemLibrary(name: "CTesseract", path: "Sources/Plugins/CTesseract", pkgConfig: "tesseract"),
    .target(
      name: "TesseractEngine",
      dependencies: ["CTesseract", "PhotometerVision", "PhotometerProtocol"],
      path: "Sources/Plugins/TesseractEngine"
    ),
    .executableTarget(
      name: "TesseractPlugin",
      dependencies: ["PluginKit", "TesseractEngine", "PhotometerVision"],
      path: "Sources/Plugins/TesseractPlugin"
    ),
    .target(
      name: "CDigitReader",
      path: "Sources/Plugins/CDigitReader",
      exclude: ["opencv4"],
      cxxSettings: [.headerSearchPath("opencv4")],
      linkerSettings: [
        .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_dnn"),
      ]
    ),
    .target(
      name: "DigitReader",
      dependencies: ["CDigitReader", "PhotometerVision", "PhotometerProtocol"],
      path: "Sources/Plugins/DigitReader",
      resources: [
        .copy("digit-reader.onnx"), .copy("digit-reader.json"), .copy("digit-reader-bitmap.onnx"),
        .copy("digit-reader-bitmap.json"), .copy("digit-reader-seed-2.onnx"), .copy("digit-reader-seed-2.json"),
        .copy("digit-reader-context.onnx"), .copy("digit-reader-context.json"),
        .copy("digit-cells.onnx"), .copy("row-finder.onnx"), .copy("orientation.onnx"),
      ]
    ),
    .executableTarget(
      name: "ReaderPlugin",
      dependencies: ["PluginKit", "DigitReader", "PhotometerVision"],
      path: "Sources/Plugins/ReaderPlugin"
    ),
    .executableTarget(
      name: "DialsPlugin",
      dependencies: ["PluginKit", "PhotometerVision", "PhotometerProtocol"],
      path: "Sources/Plugins/DialsPlugin"
    ),
    .executableTarget(
      name: "TestPlugin",
      dependencies: ["PluginKit", "PhotometerImages"],
      path: "Sources/Plugins/TestPlugin"
    ),

    // MARK: Tests

    .target(
      name: "TestSupport",
      dependencies: [
        "PhotometerProtocol", "PhotometerHost", "PluginSupervisor", "PhotometerStore",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/TestSupport"
    ),
    .testTarget(
      name: "PhotometerProtocolTests",
      dependencies: ["PhotometerProtocol", "TestSupport"]
    ),
    .testTarget(
      name: "ChildProcessTests",
      dependencies: ["ChildProcess"]
    ),
    .testTarget(
      name: "PhotometerImagesTests",
      dependencies: ["PhotometerImages"]
    ),
    .testTarget(
      name: "PhotometerChartsTests",
      dependencies: ["PhotometerCharts"]
    ),
    .testTarget(
      name: "PhotometerStoreTests",
      dependencies: ["PhotometerStore", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
    ),
    .testTarget(
      name: "PhotometerVisionTests",
      dependencies: ["PhotometerVision", "MeterMatchers", "TesseractEngine", "TestSupport"]
    ),
    .testTarget(
      name: "DigitReaderTests",
      dependencies: ["DigitReader", "PhotometerVision", "PhotometerProtocol", "TestSupport"]
    ),
    .testTarget(
      name: "PluginKitTests",
      dependencies: ["PluginKit", "PhotometerProtocol"]
    ),
    .testTarget(
      name: "PhotometerVotingTests",
      dependencies: ["PhotometerVoting", "TestSupport"]
    ),
    .testTarget(
      name: "PhotometerScoringTests",
      dependencies: ["PhotometerScoring", "PhotometerProtocol"]
    ),
    .testTarget(
      name: "PhotometerHostTests",
      dependencies: [
        "PhotometerHost", "PluginSupervisor", "PhotometerProtocol", "PhotometerVision", "TestSupport", "TestPlugin",
        "PhotometerStore", "PhotometerVoting",
      ]
    ),
    .testTarget(
      name: "PhotometerEndToEndTests",
      dependencies: [
        "PhotometerClient", "PhotometerHost", "PluginSupervisor", "PhotometerProtocol", "ChildProcess", "TestSupport",
        "PhotometerHostMain", "PhotometerCLI", "TestPlugin", "PhotometerVision", "DigitReader", "PhotometerVoting",
      ]
    ),
  ],
  cxxLanguageStandard: .cxx17
)
