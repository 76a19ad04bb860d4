// swift-tools-version: 6.1
import PackageDescription

// The hot-path benchmarks of issue 7 (ordo-one/benchmark). Run from this folder:
//   swift package benchmark                      # all benchmarks, wall clock and malloc counts
//   swift package benchmark thresholds check     # the malloc-count gate against Thresholds/
// Names are "<Layer>.<operation>.<workload>": Fast (the engine), Coding (Codable bridge), Auto (@AutoCoding),
// Graph (dynamic graph) and libplist (its C API, the floor the engine is measured against).
// SwiftPM names a path dependency after its folder, so the root package's identity is the name of the folder
// this one sits in (`main`, a clone's name ...), not its manifest name `AutoCoding`.
let root = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "AutoCoding").lowercased()

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        // The comparison runner: every decode and encode path against swift-corelibs-foundation and libplist on
        // the same bytes, in one run (`swift run -c release autocoding-bench`; `--quick` is the smoke run).
        .executable(name: "autocoding-bench", targets: ["ComparisonRunner"]),
    ],
    dependencies: [
        .package(path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "ComparisonRunner",
            dependencies: [
                .product(name: "AutoCoding", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "BenchmarkFixtures",
                "LibplistFloor",
            ],
            path: "Sources/ComparisonRunner"
        ),
        // libplist's C parse + walk + free and plist_to_bin, in C: the floor of the engine's read and write, for the
        // ordo-one benchmarks and the comparison runner (linked, not looked up with dlopen).
        .target(
            name: "LibplistFloor",
            path: "Sources/LibplistFloor",
            linkerSettings: [.linkedLibrary("plist-2.0")]
        ),
        // The workloads (deterministic generators) and the random generator, shared by the benchmark targets and
        // the comparison runner.
        .target(
            name: "BenchmarkFixtures",
            dependencies: [.product(name: "AutoCoding", package: root)],
            path: "Sources/BenchmarkFixtures"
        ),
        .executableTarget(
            name: "ArchiveReading",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AutoCodingFast", package: root),
                "BenchmarkFixtures",
                "LibplistFloor",
            ],
            path: "Benchmarks/ArchiveReading",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ArchiveWriting",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AutoCodingFast", package: root),
                "BenchmarkFixtures",
                "LibplistFloor",
            ],
            path: "Benchmarks/ArchiveWriting",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ModelCoding",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "AutoCoding", package: root),
                "BenchmarkFixtures",
            ],
            path: "Benchmarks/ModelCoding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
