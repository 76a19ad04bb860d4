import AutoCodingFast
import Benchmark
import BenchmarkFixtures
import LibplistFloor

// The engine's writer (an archive table → binary plist bytes: one sizing pass, one buffer) against libplist's
// plist_to_bin on the same content. libplist 2.2's writer is quadratic, so it runs at 1k people only.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 200,
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 20.0])]
    )
    let kilo = Benchmark.Configuration(
        metrics: Benchmark.defaultConfiguration.metrics, warmupIterations: 1, scalingFactor: .kilo,
        maxDuration: .seconds(2), maxIterations: 200, thresholds: Benchmark.defaultConfiguration.thresholds)

    Benchmark("Fast.write.W1-10k") { benchmark in
        let table = Fixtures.table(Fixtures.people(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(table.binaryPlist()) }
    }

    Benchmark("Fast.write.W1-1k") { benchmark in
        let table = Fixtures.table(Fixtures.people(1_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(table.binaryPlist()) }
    }

    Benchmark("libplist.write.W1-1k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(1_000))
        let tree = LibplistFloor_parse(bytes, bytes.count)
        defer { LibplistFloor_free(tree) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(LibplistFloor_write(tree)) }
    }

    Benchmark("Fast.write.W2-10k") { benchmark in
        let table = Fixtures.table(Fixtures.numbers(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(table.binaryPlist()) }
    }

    Benchmark("Fast.write.W3-100") { benchmark in
        let table = Fixtures.table(Fixtures.blobs(100))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(table.binaryPlist()) }
    }

    Benchmark("Fast.write.W1-10", configuration: kilo) { benchmark in
        let table = Fixtures.table(Fixtures.people(10))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(table.binaryPlist()) }
    }
}
