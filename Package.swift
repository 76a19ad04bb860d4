// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// Only the `AutoCoding` library declares the macros, so only it (and the macro tests) build swift-syntax:
// `AutoCodingCore`, the `autocoding` tool and everything else build without it.
let package = Package(
    name: "AutoCoding",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AutoCodingFast", targets: ["AutoCodingFast"]),
        .library(name: "AutoCodingCore", targets: ["AutoCodingCore"]),
        .library(name: "AutoCoding", targets: ["AutoCoding"]),
        .library(name: "AutoCodingCodegen", targets: ["AutoCodingCodegen"]),
        .executable(name: "autocoding", targets: ["autocoding"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        // Test-only and documentation-only dependencies: SwiftPM resolves, for a package that depends on this one,
        // only the packages that the targets of this package's products use (not test targets, and no plugin that
        // no target uses), so library users never fetch these two. `scripts/docs.sh` runs the DocC plugin.
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPlistShim",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "AutoCodingFast",
            dependencies: [
                "CPlistShim",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .macro(
            name: "AutoCodingMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        // The object layer: graphs, Foundation classes, the Codable bridge, model coding, typedstreams, paths.
        .target(
            name: "AutoCodingCore",
            dependencies: [
                "AutoCodingFast",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // `autocoding codegen` as a library: @AutoCoding model source inferred from archives.
        .target(
            name: "AutoCodingCodegen",
            dependencies: [
                "AutoCodingCore",
                "AutoCodingFast",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // What users import: the macros, and `AutoCodingCore` re-exported.
        .target(
            name: "AutoCoding",
            dependencies: ["AutoCodingCore", "AutoCodingMacros"]
        ),
        // The commands of `autocoding`, a library so that tests can import them (SwiftPM builds no module of an
        // executable for test targets once a package has a macro target).
        .target(
            name: "_AutoCodingCommands",
            dependencies: [
                "AutoCodingCodegen",
                "AutoCodingCore",
                "AutoCodingFast",
                "CSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "autocoding",
            dependencies: ["_AutoCodingCommands"]
        ),
        // Helpers shared by the test targets: fixture and corpus locations, value comparison, the CLI runner.
        .target(
            name: "_AutoCodingTestSupport",
            dependencies: ["AutoCodingFast"],
            path: "Tests/_AutoCodingTestSupport"
        ),
        .testTarget(
            name: "AutoCodingFastTests",
            dependencies: [
                "AutoCodingFast",
                "_AutoCodingTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            exclude: ["Fixtures"]  // read from the checkout through `Fixtures` in _AutoCodingTestSupport
        ),
        .testTarget(
            name: "AutoCodingTests",
            dependencies: [
                "AutoCoding",
                "AutoCodingCore",
                "AutoCodingFast",
                "_AutoCodingTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "AutoCodingMacrosTests",
            dependencies: [
                "AutoCodingMacros",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "AutoCodingCLITests",
            dependencies: [
                "_AutoCodingCommands",
                "AutoCodingCodegen",
                "AutoCoding",
                "AutoCodingFast",
                "_AutoCodingTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
