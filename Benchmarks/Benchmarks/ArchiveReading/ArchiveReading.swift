import AutoCodingFast
import Benchmark
import BenchmarkFixtures
import LibplistFloor

// The engine's read (bytes → validated object table) against libplist's C parse + walk + free on the same bytes.
// Inputs are built before the measured loop (`startMeasurement()`); large inputs run once per iteration, the small
// archive a thousand times (`scalingFactor: .kilo`).

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

    Benchmark("Fast.read.W1-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveView(bytes: bytes)) }
    }

    Benchmark("Fast.value.W1-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try ArchiveValue(propertyList: bytes)) }
    }

    Benchmark("libplist.read.W1-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(LibplistFloor_read(bytes, bytes.count)) }
    }

    Benchmark("Fast.read.W2-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.numbers(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveView(bytes: bytes)) }
    }

    Benchmark("libplist.read.W2-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.numbers(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(LibplistFloor_read(bytes, bytes.count)) }
    }

    Benchmark("Fast.read.W3-100") { benchmark in
        let bytes = Fixtures.archive(Fixtures.blobs(100))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveView(bytes: bytes)) }
    }

    Benchmark("Fast.read.W1-10", configuration: kilo) { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveView(bytes: bytes)) }
    }

    Benchmark("libplist.read.W1-10", configuration: kilo) { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(LibplistFloor_read(bytes, bytes.count)) }
    }
}
