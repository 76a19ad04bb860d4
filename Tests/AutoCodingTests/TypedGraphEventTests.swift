import AutoCoding
import Testing

/// `TypedGraph(stream:)` takes events a caller assembled, not only those the reader validated: whatever their
/// order, it throws a structure error or builds a graph, and a graph it builds writes events that build the same
/// number of objects again.
@Suite("TypedGraph from arbitrary events")
struct TypedGraphEventTests {
    /// A stream holding the strings the events below point into, and those events.
    struct Alphabet {
        var stream = Typedstream()
        var events: [TypedstreamEvent] = []
        /// A well-formed sequence: an object holding a group of an object (a reference to itself), an integer, a C
        /// string twice, an array, a struct and a class value.
        var valid: [TypedstreamEvent] = []

        init() {
            let object = stream.string("@")
            let mixed = stream.string("@i**[2i]{p=ii}#")
            let integer = stream.string("i")
            let name = stream.string("NSObject")
            let text = stream.string("abc")
            let array = stream.string("[2i]")
            let structure = stream.string("{p=ii}")
            events = [
                .beginGroup(object), .beginGroup(integer), .endGroup, .beginObject, .endObject,
                .classInfo(name: name, version: 0), .nil, .reference(0, kind: .object), .reference(1, kind: .class),
                .reference(2, kind: .cString), .reference(7, kind: .object), .signed(1, type: UInt8(ascii: "i")),
                .cString(text), .string(text), .beginArray(array, count: 2), .endArray, .beginStruct(structure),
                .endStruct,
            ]
            valid = [
                .beginGroup(object), .beginObject, .classInfo(name: name, version: 0), .nil,
                .beginGroup(mixed), .reference(0, kind: .object), .signed(7, type: UInt8(ascii: "i")),
                .cString(text), .reference(2, kind: .cString),
                .beginArray(array, count: 2), .signed(1, type: UInt8(ascii: "i")),
                .signed(2, type: UInt8(ascii: "i")), .endArray,
                .beginStruct(structure), .signed(3, type: UInt8(ascii: "i")), .signed(4, type: UInt8(ascii: "i")),
                .endStruct, .reference(1, kind: .class), .endGroup, .endObject, .endGroup,
            ]
        }

        func stream(_ events: [TypedstreamEvent]) -> Typedstream {
            var copy = stream
            copy.events = events
            return copy
        }
    }

    /// Builds `events`; a graph must write events that build again with as many objects.
    static func check(_ events: [TypedstreamEvent], in alphabet: Alphabet) -> Bool {
        do {
            let graph = try TypedGraph(stream: alphabet.stream(events))
            let rebuilt = try TypedGraph(stream: graph.typedstream())
            #expect(rebuilt.objects.count == graph.objects.count, "\(events)")
            graph.breakReferenceCycles()
            rebuilt.breakReferenceCycles()
            return true
        } catch {
            #expect([.unexpectedType, .truncated].contains(error.code), "\(events): \(error)")
            return false
        }
    }

    @Test func theWellFormedSequenceBuilds() throws {
        let alphabet = Alphabet()
        let graph = try TypedGraph(stream: alphabet.stream(alphabet.valid))
        let root = try #require(graph.root)
        let values = try #require(root.groups.first?.values)
        #expect(values.count == 7)
        #expect(values[0].object === root)
        if case .cString(let first) = values[2], case .cString(let second) = values[3] {
            #expect(first === second)
        } else {
            Issue.record("expected two C string values, got \(values)")
        }
        #expect(values[1].integer == 7)
        if case .array(let elements, let encoding) = values[4], case .structure(let fields, let name) = values[5] {
            #expect(elements.map(\.integer) == [1, 2] && encoding == "[2i]")
            #expect(fields.map(\.integer) == [3, 4] && name == "{p=ii}")
        } else {
            Issue.record("expected an array and a struct, got \(values)")
        }
        if case .class(let chain) = values[6] {
            #expect(chain == root.classes && chain.map(\.name) == ["NSObject"])
        } else {
            Issue.record("expected a class value, got \(values[6])")
        }
        graph.breakReferenceCycles()
    }

    /// Every sequence of up to three events of the alphabet.
    @Test func everyShortSequenceThrowsOrBuilds() {
        let alphabet = Alphabet()
        var sequences: [[TypedstreamEvent]] = [[]]
        var frontier: [[TypedstreamEvent]] = [[]]
        for _ in 1...3 {
            frontier = frontier.flatMap { prefix in alphabet.events.map { prefix + [$0] } }
            sequences += frontier
        }
        let built = sequences.filter { Self.check($0, in: alphabet) }.count
        #expect(built > 0 && built < sequences.count, "\(built) of \(sequences.count) built")
    }

    /// The well-formed sequence with one event removed, replaced, inserted or swapped with the next, everywhere.
    @Test func everyOneEventMutationThrowsOrBuilds() {
        let alphabet = Alphabet()
        let valid = alphabet.valid
        var mutants: [[TypedstreamEvent]] = []
        for index in valid.indices {
            var removed = valid
            removed.remove(at: index)
            mutants.append(removed)
            for event in alphabet.events {
                var replaced = valid
                replaced[index] = event
                mutants.append(replaced)
                var inserted = valid
                inserted.insert(event, at: index)
                mutants.append(inserted)
            }
            if index + 1 < valid.count {
                var swapped = valid
                swapped.swapAt(index, index + 1)
                mutants.append(swapped)
            }
        }
        let built = mutants.filter { Self.check($0, in: alphabet) }.count
        #expect(built > 0 && built < mutants.count, "\(built) of \(mutants.count) built")
    }
}
