import AutoCodingFast

/// Reads a list (`NS.objects`, or an array stored in place) element by element.
struct ArchiveUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: _ArchiveDecoder
    let elements: ListElements
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var codingPathNode: CodingPathNode { decoder.codingPathNode }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: _ArchiveDecoder, elements: ListElements) {
        self.decoder = decoder
        self.elements = elements
    }

    private var nextPath: CodingPathNode { codingPathNode.appending(index: currentIndex) }

    private func next(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: nextPath.path, debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        let isNull = try decoder.context.resolve(try next(Never.self)).isNull
        if isNull { currentIndex += 1 }
        return isNull
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.context.decode(type, at: try next(type), path: nextPath)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let nested = try nestedDecoder()
        return try nested.container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nestedDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try nestedDecoder() }

    private mutating func nestedDecoder() throws -> _ArchiveDecoder {
        let node = try decoder.context.resolve(try next(Any.self))
        let nested = _ArchiveDecoder(context: decoder.context, node: node, codingPathNode: nextPath)
        currentIndex += 1
        return nested
    }
}
