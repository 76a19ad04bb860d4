import AutoCodingFast

/// The text of an iMessage `attributedBody` blob (Messages' `chat.db`, table `message`) with its attribute
/// runs: message parts, links, mentions, file transfers, text effects and styles.
public struct IMessageText {
    /// An attribute value, mapped from its Foundation class.
    public indirect enum Value {
        case string(String)
        case integer(Int64)
        case real(Double)
        case url(String)
        case data([UInt8])
        /// An `NSData` holding an `NSKeyedArchiver` archive (data detectors, rich links), decoded.
        case keyedArchive(ArchiveGraph)
        case array([Value])
        case dictionary([(key: String, value: Value)])
        /// An object of another class, by class name (kept in ``IMessageText/graph``).
        case object(String)
        case null
    }

    /// One run of text with the same attributes.
    public struct Run {
        /// Start in UTF-16 units of ``IMessageText/text``.
        public var location: Int
        /// Length in UTF-16 units.
        public var length: Int
        /// The run's text.
        public var text: String
        /// The attributes, in archive order, by their keys (`__kIMMessagePartAttributeName` …).
        public var attributes: [(key: String, value: Value)]

        /// The value of one attribute.
        public func attribute(_ key: String) -> Value? { attributes.first { $0.key == key }?.value }

        /// `__kIMMessagePartAttributeName`: the message part the run belongs to.
        public var messagePart: Int64? { if case .integer(let v)? = attribute(Key.messagePart) { v } else { nil } }
        /// `__kIMLinkAttributeName`: the link the run shows.
        public var link: String? {
            switch attribute(Key.link) {
            case .url(let s)?, .string(let s)?: s
            default: nil
            }
        }
        /// `__kIMMentionConfirmedMention`: the handle the run mentions.
        public var mention: String? { if case .string(let v)? = attribute(Key.mention) { v } else { nil } }
        /// `__kIMFileTransferGUIDAttributeName`: the attachment the run stands for.
        public var fileTransferGUID: String? {
            if case .string(let v)? = attribute(Key.fileTransferGUID) { v } else { nil }
        }
        /// `__kIMTextEffectAttributeName`: the animated text effect code.
        public var textEffect: Int64? { if case .integer(let v)? = attribute(Key.textEffect) { v } else { nil } }
    }

    /// The attribute keys Messages uses.
    public enum Key {
        public static let messagePart = "__kIMMessagePartAttributeName"
        public static let link = "__kIMLinkAttributeName"
        public static let mention = "__kIMMentionConfirmedMention"
        public static let fileTransferGUID = "__kIMFileTransferGUIDAttributeName"
        public static let textEffect = "__kIMTextEffectAttributeName"
    }

    /// The message text.
    public var text: String
    /// The runs, in order.
    public var runs: [Run]
    /// The whole graph, for attributes this type does not map.
    public var graph: TypedGraph

    /// Reads an `attributedBody` blob: a typedstream whose root is an `NSAttributedString`.
    public init(attributedBody bytes: [UInt8], options: ArchiveReadingOptions = ArchiveReadingOptions()) throws {
        let graph = try TypedGraph(bytes: bytes, options: options)
        do {
            try self.init(graph: graph, inputBytes: bytes.count, options: options)
        } catch {
            // The graph is this init's own: objects on cycles would outlive the error (ReferenceCycles.swift).
            graph.breakReferenceCycles()
            throw error
        }
    }

    /// Reads the body from the graph of an `attributedBody` blob of `inputBytes` bytes, which the caller has
    /// read already (a batch record that also prints the graph reads it once). The graph stays the caller's,
    /// cycles included, when this throws.
    package init(graph: TypedGraph, inputBytes: Int, options: ArchiveReadingOptions) throws {
        self.graph = graph
        guard case .attributedString(let body)? = graph.root?.foundation else {
            throw TypedstreamDecodingError(
                .unexpectedLayout,
                "the root is \(graph.root?.className ?? "not an object"), not an NSAttributedString "
                    + "with the expected layout (a string, then runs whose UTF-16 lengths sum within Int.max)"
            )
        }
        text = body.text
        let utf16 = Array(body.text.utf16)
        var runs: [Run] = []
        var budget = ExpansionBudget(bytes: OutputBudget.bytes(forInputBytes: inputBytes))
        do {
            try Self.mapRuns(body.runs, of: utf16, into: &runs, depth: options.depthLimit, budget: &budget)
        } catch {
            // Every keyed archive decoded from a data attribute so far is among the mapped values.
            Self.breakReferenceCycles(in: budget.mapped.values.map(\.value))
            throw error
        }
        self.runs = runs
    }

    /// Maps the runs of an attributed string whose text is `utf16`, appending to `runs`.
    private static func mapRuns(
        _ bodyRuns: [TypedAttributedString.Run], of utf16: [UInt16], into runs: inout [Run], depth: Int,
        budget: inout ExpansionBudget
    ) throws {
        for run in bodyRuns {
            let start = min(run.location, utf16.count)
            let end = min(run.location + run.length, utf16.count)
            var attributes: [(key: String, value: Value)] = []
            if case .dictionary(let pairs)? = run.attributes?.foundation {
                for pair in pairs {
                    guard case .string(let key)? = pair.key.object?.foundation else { continue }
                    attributes.append((key, try Self.value(pair.value, depth: depth, budget: &budget)))
                }
            }
            runs.append(
                Run(
                    location: run.location,
                    length: run.length,
                    text: String(decoding: utf16[start..<end], as: UTF16.self),
                    attributes: attributes
                )
            )
        }
    }

    /// What mapping attributes may produce: shared objects are copied at every reference, so a 40-level DAG
    /// (each array holding the next twice) would map to 2⁴⁰ values. Each value spends its size (8 bytes, or its
    /// text or data) from a budget of ``OutputBudget/bytes(forInputBytes:)``; past it the init throws.
    struct ExpansionBudget {
        private(set) var bytes: Int
        let limit: Int

        init(bytes: Int) {
            self.bytes = bytes
            limit = bytes
        }

        /// Each object's mapped value at each depth left, with what mapping it spent: a shared object is mapped
        /// once and spends the same again at every further reference (a 245 KB stream of shared attribute
        /// dictionaries mapped 3 million values before running out of budget, in 1.7 s).
        fileprivate var mapped: [MappedKey: (value: Value, cost: Int)] = [:]

        /// Spends what a mapping of `cost` spent, throwing as ``spend(_:)`` does past the budget.
        fileprivate mutating func spendAgain(_ cost: Int) throws {
            bytes -= cost
            try check()
        }

        mutating func spend(_ cost: Int) throws {
            bytes -= max(cost, 8)
            try check()
        }

        private func check() throws {
            guard bytes >= 0 else {
                throw TypedstreamDecodingError(
                    .limitExceeded,
                    "the attributes expand past their budget of \(limit) bytes (100 × the input + 1 MiB): "
                        + "shared objects repeat")
            }
        }
    }

    /// Maps a value; nesting beyond `depth` becomes ``Value/object(_:)`` (no unbounded recursion), and every
    /// value mapped spends from `budget`.
    static func value(_ value: TypedValue, depth: Int, budget: inout ExpansionBudget) throws -> Value {
        let key = value.object.map { MappedKey(object: ObjectIdentifier($0), depth: depth) }
        if let key, let known = budget.mapped[key] {
            try budget.spendAgain(known.cost)
            return known.value
        }
        let before = budget.bytes
        let mapped = try mapValue(value, depth: depth, budget: &budget)
        do {
            switch mapped {
            case .string(let s), .url(let s): try budget.spend(s.utf8.count)
            default: try budget.spend(8)
            }
        } catch {
            // Not among the mapped values yet, which the init frees when it throws.
            breakReferenceCycles(in: [mapped])
            throw error
        }
        if let key { budget.mapped[key] = (mapped, before - budget.bytes) }
        return mapped
    }

    /// An object mapped with `depth` levels left.
    fileprivate struct MappedKey: Hashable {
        var object: ObjectIdentifier
        var depth: Int
    }

    private static func mapValue(_ value: TypedValue, depth: Int, budget: inout ExpansionBudget) throws -> Value {
        guard let object = value.object else {
            if case .nil = value { return .null }
            if let integer = value.integer { return .integer(integer) }
            if let real = value.real { return .real(real) }
            return .object("\(value)")
        }
        guard depth > 0, let foundation = object.foundation else { return .object(object.className) }
        switch foundation {
        case .string(let s): return .string(s)
        case .attributedString(let a): return .string(a.text)
        case .number(let n):
            if let integer = n.integer { return .integer(integer) }
            return n.real.map { .real($0) } ?? .object(object.className)
        case .url(let relative, let base):
            if let base, case .url(let b, _)? = base.foundation { return .url(b + relative) }
            return .url(relative)
        case .data(let bytes):
            // Spent before decoding: an archive inside data is decoded again at every reference to it.
            try budget.spend(bytes.count)
            if let graph = try? ArchiveGraph(bytes: bytes) { return .keyedArchive(graph) }
            return .data(bytes)
        case .array(let values), .set(let values):
            return .array(try values.map { try Self.value($0, depth: depth - 1, budget: &budget) })
        case .dictionary(let pairs):
            return .dictionary(
                try pairs.map { pair in
                    let key: String
                    if case .string(let s)? = pair.key.object?.foundation { key = s } else { key = "\(pair.key)" }
                    return (key, try Self.value(pair.value, depth: depth - 1, budget: &budget))
                }
            )
        case .null: return .null
        case .date(let t): return .real(t)
        default: return .object(object.className)
        }
    }
}
