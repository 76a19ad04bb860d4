import AutoCoding
import Benchmark
import BenchmarkFixtures

// The object layer: the Codable bridge (Coding), @AutoCoding models (Auto) and the dynamic graph (Graph), each
// decoding and encoding W1 (people with shared friends) and W2 (a dictionary of numbers).

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 200,
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 5.0])]
    )
    let kilo = Benchmark.Configuration(
        metrics: Benchmark.defaultConfiguration.metrics, warmupIterations: 1, scalingFactor: .kilo,
        maxDuration: .seconds(2), maxIterations: 200, thresholds: Benchmark.defaultConfiguration.thresholds)

    Benchmark("Coding.decode.W1-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveDecoder().decode([Person].self, from: bytes)) }
    }

    Benchmark("Coding.encode.W1-10k") { benchmark in
        let people = Fixtures.people(10_000)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveEncoder().encodeBytes(people)) }
    }

    Benchmark("Auto.decode.W1-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.autoPeople(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveDecoder().decode([AutoPerson].self, from: bytes)) }
    }

    Benchmark("Auto.encode.W1-10k") { benchmark in
        let people = Fixtures.autoPeople(10_000)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveEncoder().encodeBytes(people)) }
    }

    Benchmark("Graph.decode.W1-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try ArchiveGraph(bytes: bytes)) }
    }

    Benchmark("Graph.encode.W1-10k") { benchmark in
        let graph = try ArchiveGraph(bytes: Fixtures.archive(Fixtures.people(10_000)))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(graph.binaryPlist()) }
    }

    Benchmark("Coding.decode.W2-10k") { benchmark in
        let bytes = Fixtures.archive(Fixtures.numbers(10_000))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try KeyedArchiveDecoder().decode([String: Int64].self, from: bytes))
        }
    }

    Benchmark("Coding.encode.W2-10k") { benchmark in
        let numbers = Fixtures.numbers(10_000)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveEncoder().encodeBytes(numbers)) }
    }

    Benchmark("Coding.decode.W1-10", configuration: kilo) { benchmark in
        let bytes = Fixtures.archive(Fixtures.people(10))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveDecoder().decode([Person].self, from: bytes)) }
    }

    Benchmark("Coding.encode.W1-10", configuration: kilo) { benchmark in
        let people = Fixtures.people(10)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try KeyedArchiveEncoder().encodeBytes(people)) }
    }
}
